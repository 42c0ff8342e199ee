"""LlamaIndex adapter fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from memhub import SyncMemoryClient
from memhub.testing import HashEmbedder

# LlamaIndex's own `Memory` keeps its chat history in SQLite through aiosqlite, and its sync
# methods run each call with `asyncio_run` (on `asyncio.get_event_loop()`'s loop, never
# closed, or a new one per call). The plain `Memory` in a sync `SimpleChatEngine` raises the
# same three warnings with no memhub code in the process: an aiosqlite connection dropped
# unclosed, its worker thread answering a loop already closed, and the loop left open.
UPSTREAM = (
    "ignore:<aiosqlite.core.Connection object at .* was deleted before being closed"
    ":ResourceWarning",
    "ignore:Exception in thread .*_connection_worker_thread"
    ":pytest.PytestUnhandledThreadExceptionWarning",
    "ignore:unclosed event loop:ResourceWarning",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.parent == here:
            for rule in UPSTREAM:
                item.add_marker(pytest.mark.filterwarnings(rule))


@pytest.fixture
def sync_client(tmp_path):
    client = SyncMemoryClient(storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path)
    yield client
    client.close()
