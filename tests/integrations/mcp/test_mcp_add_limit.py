"""The MCP ``add`` tool takes at most ``max_messages_per_add`` turns per call, as REST does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import Client

from memhub import MemoryClient, Settings
from memhub.testing import HashEmbedder
from memhub_mcp import build_server

LIMIT = 3


def _turns(n: int) -> list[dict[str, str]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}: 我第{i}次去了成都"}
        for i in range(n)
    ]


@asynccontextmanager
async def _mcp(store: Path, cwd: Path) -> AsyncIterator[Client]:
    """An in-process MCP client of a server over ``store`` (entered and left in one task, as
    anyio requires: a fixture would leave it in another)."""
    settings = Settings(storage_dir=str(store), max_messages_per_add=LIMIT)

    def client() -> MemoryClient:
        return MemoryClient(settings=settings, embed=HashEmbedder(), cwd=cwd)

    async with Client(build_server(client)) as session:
        yield session


async def test_an_add_over_the_limit_is_a_tool_error_naming_it_and_stores_nothing(
    new_store, tmp_path
):
    async with _mcp(new_store(tmp_path / "store"), tmp_path) as mcp:
        result = await mcp.call_tool(
            "add", {"user_id": "alice", "session_id": "s", "messages": _turns(LIMIT + 1)}
        )
        assert result.is_error
        text = result.content[0].text
        assert text.startswith("invalid_input: ")
        assert f"the limit is {LIMIT}" in text and "session_id" in text
        stats = await mcp.call_tool("stats", {"user_id": "alice"})
        assert not stats.is_error and stats.structured_content["atoms"] == 0

        at_the_limit = await mcp.call_tool("add", {"user_id": "alice", "messages": _turns(LIMIT)})
        assert not at_the_limit.is_error, at_the_limit.content
        assert len(at_the_limit.structured_content["raw_ids"]) == LIMIT
