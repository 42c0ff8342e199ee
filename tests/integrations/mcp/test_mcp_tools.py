"""Every tool, the prompt and the resource, over stdio and over streamable HTTP.

One server per transport serves all the scenarios of its class (a cold start takes
seconds); each scenario writes its own topics, so they do not depend on one another.
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_harness import (
    BRANCH,
    REPOSITORY,
    Server,
    make_checkout,
    open_session,
    server_command,
    server_env,
    stop,
    wait_for_line,
)
from mcp_types import CallToolResult

from memhub_mcp import CONTEXT_PROMPT, CONTEXT_URI, TOOL_NAMES

MISSING = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a valid id that no memory has
SEALED = "[governed payload hidden: sealed]"


async def call(server: Server, tool: str, **arguments: Any) -> dict[str, Any]:
    """A successful call's structured result (which must equal its text block)."""
    result = await server.session.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def fail(server: Server, tool: str, **arguments: Any) -> str:
    """A failed call's text; the server must answer with a tool error, not a protocol error."""
    result = await server.session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


def ids(recalled: dict[str, Any]) -> list[str]:
    return [a["atom_id"] for a in recalled["atoms"]]


class Scenarios:
    """The behaviour both transports must show; ``server`` is set up by each subclass."""

    async def test_lists_the_ten_tools_with_typed_input_schemas(self, server: Server):
        tools = {t.name: t for t in (await server.session.list_tools()).tools}
        assert set(tools) == set(TOOL_NAMES) and len(tools) == 10
        for tool in tools.values():
            assert tool.input_schema["type"] == "object" and tool.output_schema is not None
            assert len(tool.description) > 150  # written for a model: when to call it, and when not
        assert tools["memorize"].input_schema["required"] == ["content"]
        assert tools["recall"].input_schema["required"] == ["query"]
        assert set(tools["add"].input_schema["required"]) == {"user_id"}
        correct = tools["correct"].input_schema["properties"]["action"]["enum"]
        assert correct == ["replace", "negate", "confirm_actual", "confirm_necessary", "demote"]
        govern = tools["govern"].input_schema["properties"]["action"]["enum"]
        assert govern == ["quarantine", "release", "seal", "tombstone", "derive_lesson"]
        assert "govern" in tools["correct"].description and "correct" in tools["govern"].description
        assert (
            tools["recall"].annotations.read_only_hint
            and tools["govern"].annotations.destructive_hint
        )

    async def test_memorize_then_recall_within_the_servers_checkout(self, server: Server):
        fact = "支付服务用 Stripe 收款，不用 PayPal"
        stored = await call(server, "memorize", content=fact)
        assert stored["effect"] == "applied"
        again = await call(server, "memorize", content=fact)
        assert (again["effect"], again["atom_id"]) == ("no_op", stored["atom_id"])
        recalled = await call(server, "recall", query="支付服务 收款")
        assert stored["atom_id"] in ids(recalled)
        current = (await call(server, "history", atom_id=stored["atom_id"]))["current"]
        assert (current["scope"]["repository"], current["scope"]["branch"]) == (REPOSITORY, BRANCH)
        elsewhere = await call(server, "recall", query="支付服务 收款", repository="acme/other")
        assert stored["atom_id"] not in ids(elsewhere)
        widened = await call(server, "recall", query="支付服务 收款", repository="*")
        assert stored["atom_id"] in ids(widened)

    async def test_recall_and_search_read_as_of_a_date(self, server: Server):
        done = await call(server, "memorize", content="The staging cluster runs on Nomad")
        now = await call(server, "recall", query="staging cluster", as_of="2999-01-01")
        assert done["atom_id"] in ids(now)
        before = await call(server, "recall", query="staging cluster", as_of="2001-01-01")
        assert done["atom_id"] not in ids(before)
        await call(server, "add", content="I keep bees on my roof", user_id="mcp-as-of")
        said = await call(server, "search", query="bees", user_id="mcp-as-of")
        assert said["memories"]["normal"] or said["memories"]["profile"]
        early = await call(server, "search", query="bees", user_id="mcp-as-of", as_of="2001-01-01")
        assert not any(early["memories"][g] for g in ("profile", "proactive", "normal"))
        turns = await call(
            server, "search_conversation", query="bees", user_id="mcp-as-of", as_of="2001-01-01"
        )
        assert turns["turns"] == []
        assert "ISO 8601" in await fail(server, "recall", query="x", as_of="someday")

    async def test_correct_replace_makes_recall_return_the_new_version(self, server: Server):
        old = await call(server, "memorize", content="项目用 PostgreSQL 16 做主数据库")
        fixed = await call(
            server,
            "correct",
            target_atom=old["atom_id"],
            action="replace",
            reason="已升级到 PostgreSQL 17",
            new_content="项目用 PostgreSQL 17 做主数据库",
        )
        new_id = fixed["new_atom_id"]
        assert new_id and fixed["effect"] == "applied"
        recalled = await call(server, "recall", query="PostgreSQL 主数据库")
        assert new_id in ids(recalled) and old["atom_id"] not in ids(recalled)
        history = await call(server, "history", atom_id=new_id)
        assert history["relations"]["supersedes"] == [old["atom_id"]]

    async def test_govern_seal_leaves_only_the_placeholder_in_history(self, server: Server):
        secret = await call(server, "memorize", content="预发环境的数据库密码是 pg_admin_123")
        sealed = await call(
            server,
            "govern",
            target_atom=secret["atom_id"],
            action="seal",
            reason="内容含明文数据库密码",
        )
        assert sealed["exposure_state"] == "sealed"
        history = await call(server, "history", atom_id=secret["atom_id"])
        assert history["current"]["content"] == SEALED
        step = history["exposure_history"][-1]
        assert (step["from"], step["to"], step["reason"]) == (
            "visible",
            "sealed",
            "内容含明文数据库密码",
        )
        recalled = await call(server, "recall", query="数据库密码", repository="*")
        assert secret["atom_id"] not in ids(recalled) and "pg_admin_123" not in json.dumps(recalled)

    async def test_add_then_search_and_search_conversation(self, server: Server):
        user = f"alice-{type(self).__name__}"
        written = await call(
            server,
            "add",
            user_id=user,
            messages=[
                {"role": "system", "content": "You are a helpful assistant."},
                {"role": "user", "content": "我最爱的编程语言是 Java，已经用了5年。"},
                {"role": "assistant", "content": "好的，记住了"},
            ],
        )
        assert len(written["raw_ids"]) == 2 and written["memory_id"] == written["raw_ids"][0]
        found = (await call(server, "search", query="用户的编程语言偏好", user_id=user))["memories"]
        assert any("Java" in m["content"] for group in found.values() if group for m in group)
        shown = {m["id"] for group in found.values() if group for m in group}
        assert written["memory_ids"] and set(written["memory_ids"]) <= shown  # the facts
        turns = (await call(server, "search_conversation", query="编程语言 Java", user_id=user))[
            "turns"
        ]
        assert any(t["role"] == "user" and "Java" in t["content"] for t in turns)
        stranger = (await call(server, "search", query="编程语言偏好", user_id="bob"))["memories"]
        assert not any(group for group in stranger.values())

    async def test_search_narrows_to_a_session_only_when_asked(self, server: Server):
        user = f"dana-{type(self).__name__}"
        await call(server, "add", user_id=user, content="我养了一只橘猫", session_id="a")
        await call(server, "add", user_id=user, content="我的猫叫团子", session_id="b")

        async def sessions(**narrow: str) -> list[str]:
            found = (await call(server, "search", query="猫", user_id=user, **narrow))["memories"]
            return sorted(m["session_id"] for group in found.values() if group for m in group)

        assert await sessions() == ["a", "b"]
        assert await sessions(session_id="b") == ["b"]

    async def test_sealing_a_raw_turn_seals_what_was_extracted_from_it(self, server: Server):
        user = f"carol-{type(self).__name__}"
        written = await call(
            server,
            "add",
            user_id=user,
            messages=[
                {
                    "role": "user",
                    "content": "保险柜暗号是 kiwi-7741。我把 kiwi-7741 写在了书房的便签上。",
                },
            ],
        )
        extracted = [d["memory_id"] for d in written["decisions"]]
        turns = await call(server, "search_conversation", query="保险柜暗号", user_id=user)
        [turn] = turns["turns"]
        sealed = await call(
            server,
            "govern",
            target_atom=turn["id"],
            action="seal",
            reason="含保险柜暗号",
            user_id=user,
        )
        assert sealed["cascaded"] == extracted and len(extracted) == 2
        found = (await call(server, "search", query="保险柜暗号 便签", user_id=user))["memories"]
        turns = await call(server, "search_conversation", query="保险柜暗号 kiwi", user_id=user)
        assert "kiwi-7741" not in json.dumps([found, turns], ensure_ascii=False)

    async def test_handoff_comes_first_in_the_session_context(self, server: Server):
        rule = "所有对外 API 必须加认证"
        await call(server, "memorize", content=rule, epistemic="necessary")
        await call(server, "handoff", summary="重构了订单模块。下一步：补集成测试。")
        await call(
            server, "handoff", summary="修复了 login.py 的空指针问题。风险：并发刷新有竞态。"
        )
        prompts = {p.name for p in (await server.session.list_prompts()).prompts}
        resources = {str(r.uri) for r in (await server.session.list_resources()).resources}
        assert CONTEXT_PROMPT in prompts and CONTEXT_URI in resources
        prompt = (await server.session.get_prompt(CONTEXT_PROMPT)).messages[0].content.text
        resource = (await server.session.read_resource(CONTEXT_URI)).contents[0].text
        for text in (prompt, resource):
            latest = text.index("修复了 login.py")
            assert latest < text.index("重构了订单模块") < text.index(rule)
            assert text.index("Latest handoff") < latest < text.index("Earlier handoffs")
        elsewhere = (
            await server.session.get_prompt(CONTEXT_PROMPT, {"repository": "acme/other"})
        ).messages[0]
        assert "修复了 login.py" not in elsewhere.content.text

    async def test_stats_counts_what_was_stored(self, server: Server):
        before = await call(server, "stats")
        await call(server, "memorize", content="日志统一输出到 stdout，由 Fluent Bit 收集")
        after = await call(server, "stats")
        assert after["atoms"] == before["atoms"] + 1
        assert after["snapshot_version"] > before["snapshot_version"]
        assert set(after["indexes"]) >= {"semantic", "keyword"}

    async def test_stats_counts_one_scope_when_asked(self, server: Server):
        await call(server, "memorize", content="发布前跑冒烟测试", user_id="stats-u1")
        await call(server, "memorize", content="周五不发布", user_id="stats-u1")
        await call(server, "memorize", content="日志保留 30 天", user_id="stats-u2")
        mine = await call(server, "stats", user_id="stats-u1")
        assert (mine["atoms"], mine["scope"]) == (2, {"user_id": "stats-u1"})
        assert (await call(server, "stats"))["atoms"] >= 3

    async def test_memhub_errors_are_tool_errors_with_their_code(self, server: Server):
        text = await fail(server, "history", atom_id=MISSING)
        assert text.startswith("not_found:") and MISSING in text
        result = await server.session.call_tool(
            "correct", {"target_atom": MISSING, "action": "negate", "reason": "x"}
        )
        assert result.is_error and result.meta["memhub/error"]["code"] == "not_found"
        rule = await call(
            server, "memorize", content="生产库只允许通过堡垒机访问", epistemic="necessary"
        )
        text = await fail(
            server, "correct", target_atom=rule["atom_id"], action="confirm_actual", reason="x"
        )
        assert text.startswith("invalid_transition:")
        text = await fail(
            server, "correct", target_atom=rule["atom_id"], action="replace", reason="x"
        )
        assert text.startswith("invalid_input:") and "new_content" in text
        assert "action" in await fail(
            server, "govern", target_atom=rule["atom_id"], action="shred", reason="x"
        )
        # The server is still serving.
        assert rule["atom_id"] in ids(await call(server, "recall", query="生产库 堡垒机"))

    async def test_server_log_has_no_crash(self, server: Server):
        assert "Traceback" not in server.stderr()


@pytest.mark.asyncio(loop_scope="class")
class TestStdio(Scenarios):
    @pytest_asyncio.fixture(scope="class", loop_scope="class")
    @classmethod
    async def server(
        cls, tmp_path_factory: pytest.TempPathFactory, new_store
    ) -> AsyncIterator[Server]:
        folder = tmp_path_factory.mktemp("mcp-stdio")
        store, log = new_store(folder / "store"), folder / "server.log"
        params = StdioServerParameters(
            command=server_command()[0],
            args=server_command("--storage-dir", str(store))[1:],
            env=server_env(folder),
            cwd=make_checkout(folder / "shop"),
        )
        with log.open("w") as errlog:
            session, close = await open_session(stdio_client(params, errlog=errlog))
            yield Server(session, log, store)
            await close()
        assert "serving MCP on stdio" in log.read_text()
        assert f"repository={REPOSITORY}, branch={BRANCH}" in log.read_text()


@pytest.mark.enable_socket
@pytest.mark.asyncio(loop_scope="class")
class TestStreamableHttp(Scenarios):
    @pytest_asyncio.fixture(scope="class", loop_scope="class")
    @classmethod
    async def server(
        cls, tmp_path_factory: pytest.TempPathFactory, new_store
    ) -> AsyncIterator[Server]:
        folder = tmp_path_factory.mktemp("mcp-http")
        store, log = new_store(folder / "store"), folder / "server.log"
        command = server_command(
            "--transport", "streamable-http", "--port", "0", "--storage-dir", str(store)
        )
        with log.open("w") as errlog:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errlog,
                env=server_env(folder),
                cwd=make_checkout(folder / "shop"),
            )
            try:
                url = wait_for_line(
                    proc, log, r"serving MCP on (http://127\.0\.0\.1:\d+/mcp)"
                ).group(1)
                session, close = await open_session(streamable_http_client(url))
                yield Server(session, log, store)
                await close()
            finally:
                code = stop(proc)
        assert code == -signal.SIGTERM
        assert "warning" not in log.read_text()  # loopback: no warning
