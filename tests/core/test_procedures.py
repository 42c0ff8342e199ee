"""Coding memory: procedures from tool-call sessions (the spec's database-is-locked example)."""

from __future__ import annotations

import json

import pytest

from memhub import MemoryClient
from memhub.testing import HashEmbedder

TOOL_OUTPUT = "conn = sqlite3.connect(db_path, timeout=5.0)  # TOOL-OUTPUT-MARKER"


def session(answer: str, *, flat: bool = False, dict_args: bool = False) -> list[dict]:
    args = {"path": "app/db.py"} if dict_args else json.dumps({"path": "app/db.py"})
    call = (
        {"id": "call_1", "name": "read_file", "arguments": args}
        if flat
        else {
            "id": "call_1",
            "type": "function",
            "function": {"name": "read_file", "arguments": args},
        }
    )
    return [
        {"role": "user", "content": "app/db.py 高并发写入偶发 database is locked"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": TOOL_OUTPUT},
        {"role": "assistant", "content": answer},
    ]


FIRST = "写事务改为 BEGIN IMMEDIATE，timeout 调到 30s。"


@pytest.fixture
async def coder(tmp_path, e5):
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        yield client


async def test_spec_example_end_to_end(coder):
    result = await coder.add(
        messages=session(FIRST), user_id="alice", workspace_id="~/code/app", branch="main"
    )
    assert result.scene == "coding" and len(result.procedure_ids) == 1
    res = await coder.search(
        query="SQLite database is locked 怎么解决", user_id="alice", procedure_limit=3
    )
    [item] = res.memories.procedures
    p = item.procedure
    assert item.id == result.procedure_ids[0]
    assert (
        p.files == ["app/db.py"]
        and "database is locked" in p.task
        and "BEGIN IMMEDIATE" in p.solution
    )
    assert (p.workspace_id, p.branch) == ("~/code/app", "main")
    assert "database is locked" in p.search_keys
    points, _ = await coder.engine.store.scroll("memories", None, limit=1000)
    assert all(
        "TOOL-OUTPUT-MARKER" not in json.dumps(pt.payload, ensure_ascii=False) for pt in points
    )
    for group in (res.memories.profile, res.memories.normal, res.memories.proactive):
        assert all("TOOL-OUTPUT-MARKER" not in m.content for m in group)
    assert all(m.layer != "procedure" for m in res.memories.normal + res.memories.profile)


async def test_new_solution_overrides_in_the_same_boundary_not_across(coder):
    first = await coder.add(
        messages=session(FIRST), user_id="alice", workspace_id="~/code/app", branch="main"
    )
    second = await coder.add(
        messages=session("改用 WAL 模式（PRAGMA journal_mode=WAL），写入走单一队列。"),
        user_id="alice",
        workspace_id="~/code/app",
        branch="main",
    )
    assert [d.action for d in second.decisions if d.memory_id == second.procedure_ids[0]] == [
        "OVERRIDE"
    ]
    other = await coder.add(
        messages=session("这个分支上直接换成 PostgreSQL。"),
        user_id="alice",
        workspace_id="~/code/app",
        branch="feature/pg",
    )
    assert [d.action for d in other.decisions if d.memory_id in other.procedure_ids] == ["ADD"]
    res = await coder.search(query="database is locked", user_id="alice", procedure_limit=5)
    current = {m.id: m for m in res.memories.procedures}
    assert first.procedure_ids[0] not in current
    assert current[second.procedure_ids[0]].evolution_chain == first.procedure_ids
    assert (
        other.procedure_ids[0] in current and current[other.procedure_ids[0]].evolution_chain == []
    )


async def test_complement_supplements(coder):
    await coder.add(messages=session(FIRST), user_id="alice", workspace_id="~/w", branch="main")
    more = await coder.add(
        messages=session("另外给 executemany 批量写入加上重试。"),
        user_id="alice",
        workspace_id="~/w",
        branch="main",
    )
    assert [d.action for d in more.decisions if d.memory_id in more.procedure_ids] == ["SUPPLEMENT"]
    res = await coder.search(query="database is locked", user_id="alice", procedure_limit=5)
    assert len(res.memories.procedures) == 2


@pytest.mark.parametrize(("flat", "dict_args"), [(True, False), (False, True), (True, True)])
async def test_tool_call_shapes(tmp_path, flat, dict_args):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        result = await client.add(
            messages=session(FIRST, flat=flat, dict_args=dict_args), user_id="u"
        )
        assert result.scene == "coding"
        item = await client.get(result.procedure_ids[0], user_id="u")
        assert item.procedure.files == ["app/db.py"]


async def test_non_coding_tools_are_dropped_and_written_as_chat(tmp_path):
    messages = [
        {"role": "user", "content": "我住在上海"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "上海"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": "晴 TOOL-OUTPUT-MARKER"},
        {"role": "assistant", "content": "上海今天晴"},
    ]
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        result = await client.add(messages=messages, user_id="u")
        assert result.scene == "chat" and result.procedure_ids == []
        points, _ = await client.engine.store.scroll("memories", None, limit=100)
        assert all(
            "TOOL-OUTPUT-MARKER" not in json.dumps(p.payload, ensure_ascii=False) for p in points
        )


async def test_procedure_enabled_false_turns_it_off(tmp_path):
    from memhub import Settings

    settings = Settings.load(procedure_enabled=False)
    async with MemoryClient(
        settings=settings, storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        result = await client.add(messages=session(FIRST), user_id="u")
        assert result.scene == "chat" and result.procedure_ids == []


async def test_update_delete_list_work_on_procedures(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        pid = (await client.add(messages=session(FIRST), user_id="u")).procedure_ids[0]
        assert pid in {m.id for m in await client.list(user_id="u")}
        await client.delete(pid, user_id="u")
        res = await client.search("database is locked", user_id="u", procedure_limit=3)
        assert res.memories.procedures == []


async def test_chat_only_write_is_unchanged_by_coding_memory(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        result = await client.add(messages=[{"role": "user", "content": "我住在上海"}], user_id="u")
        assert result.scene == "chat" and result.procedure_ids == []
        assert [d.action for d in result.decisions] == ["ADD"]


async def test_with_an_llm_procedures_come_from_one_extraction_call_beside_the_chat_one(tmp_path):
    from memhub.testing import ScriptedLLM

    def script(system, user):
        assert "TOOL-OUTPUT-MARKER" not in user  # the model never sees tool outputs
        if "engineering session" in system:
            return {
                "procedures": [
                    {
                        "task": "SQLite database is locked under concurrent writes",
                        "solution": "BEGIN IMMEDIATE and a 30 s busy timeout",
                        "search_keys": ["database is locked", "sqlite3"],
                        "boundary_scope": "project",
                    }
                ]
            }
        return {"candidates": []}

    llm = ScriptedLLM(script)
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as client:
        result = await client.add(
            messages=session(FIRST), user_id="u", workspace_id="~/w", branch="main"
        )
        assert llm.calls == 2 and result.scene == "coding"
        item = await client.get(result.procedure_ids[0], user_id="u")
        assert item.procedure.files == ["app/db.py"]  # from the tool calls, not from the model
        assert item.procedure.task == "SQLite database is locked under concurrent writes"


async def test_update_keeps_a_procedures_fields(tmp_path):
    """The quickstart's loop over ``res.memories.procedures`` reads ``.procedure`` of each."""
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        pid = (await client.add(messages=session(FIRST), user_id="u", branch="main")).procedure_ids[
            0
        ]
        new_id = await client.update(pid, "改用 WAL 模式，写入走单一队列。", user_id="u")
        res = await client.search("database is locked", user_id="u", procedure_limit=3)
        [item] = res.memories.procedures
        p = item.procedure
        assert item.id == new_id and item.evolution_chain == [pid]
        assert "database is locked" in p.task and p.solution == "改用 WAL 模式，写入走单一队列。"
        assert p.files == ["app/db.py"] and p.branch == "main"
        assert item.content == f"{p.task}\n→ {p.solution}"
        both = "SQLite 写锁冲突\n→ BEGIN IMMEDIATE"
        newer = await client.update(new_id, both, user_id="u")
        p = (await client.get(newer, user_id="u")).procedure
        assert (p.task, p.solution, p.files) == (
            "SQLite 写锁冲突",
            "BEGIN IMMEDIATE",
            ["app/db.py"],
        )
