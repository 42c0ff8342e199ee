"""Sealing reaches a memory's lineage: no read returns the text through a record it was
taken from or a record taken from it (a raw turn, its extracted memories, L3 patterns)."""

from __future__ import annotations

import pytest

from memhub import MemoryClient
from memhub.engine.hmg import hide
from memhub.engine.records import new_payload
from memhub.ids import new_id
from memhub.scope import Scope
from memhub.testing import HashEmbedder

SECRET = "kiwi-7741"  # a secret in prose: redaction does not catch it
TURN = f"保险柜暗号是 {SECRET}。我把 {SECRET} 写在了书房的便签上。"
OTHER = "我在字节跳动工作"
REASON = "含保险柜暗号"
SEALED = "[governed payload hidden: sealed]"
TOMBSTONED = "[governed payload hidden: tombstoned]"


async def conversation(client: MemoryClient, user_id: str = "alice") -> tuple[str, list[str], str]:
    """The secret turn's raw id, the two memories extracted from it, and the one from
    another turn.
    """
    written = await client.add(
        messages=[
            {"role": "user", "content": TURN},
            {"role": "assistant", "content": "好的，记住了"},
            {"role": "user", "content": OTHER},
        ],
        user_id=user_id,
    )
    extracted = [d.memory_id for d in written.decisions if SECRET in d.candidate]
    [other] = [d.memory_id for d in written.decisions if d.candidate == OTHER]
    assert len(extracted) == 2 and all(extracted)
    return written.raw_ids[0], extracted, other


async def shown(client: MemoryClient, user_id: str = "alice") -> str:
    """Everything search, recall, list and search_conversation return for the user, as one text."""
    query = f"保险柜暗号 {SECRET} 便签"
    results = [
        await client.search(query, user_id=user_id, limit=50),
        await client.recall(query, user_id=user_id, limit=50),
        await client.search_conversation(query, user_id=user_id, limit=50),
        *await client.list(user_id=user_id, include_history=True),
    ]
    return "\n".join(r.model_dump_json() for r in results)


async def listed(client: MemoryClient, user_id: str = "alice") -> set[str]:
    return {m.id for m in await client.list(user_id=user_id)}


async def exposure_steps(
    client: MemoryClient, atom_id: str
) -> list[tuple[str | None, str | None, str | None]]:
    return [(s.from_, s.to, s.reason) for s in (await client.history(atom_id)).exposure_history]


async def test_sealing_a_raw_turn_seals_the_memories_extracted_from_it(client):
    raw, extracted, other = await conversation(client)
    assert SECRET in await shown(client)
    turns = (await client.search_conversation("保险柜暗号", user_id="alice")).turns
    [turn] = [t for t in turns if SECRET in t.content]

    result = await client.govern(turn.id, "seal", REASON, user_id="alice")

    assert turn.id == raw and result.cascaded == extracted
    assert SECRET not in await shown(client)
    found = (await client.search("保险柜暗号 便签", user_id="alice")).memories.all()
    recalled = (await client.recall("保险柜暗号 便签", user_id="alice")).atoms
    assert not {m.id for m in found} & set(extracted)
    assert not {a.atom_id for a in recalled} & set(extracted)
    assert await listed(client) == {other}
    for memory_id in extracted:
        assert (await client.get(memory_id, user_id="alice")).content == SEALED
        step = ("visible", "sealed", f"{REASON} (derived from {raw})")
        assert await exposure_steps(client, memory_id) == [step]


async def test_sealing_a_fact_seals_its_turn_and_the_siblings_taken_from_the_same_turn(client):
    raw, (fact, sibling), other = await conversation(client)

    result = await client.govern(fact, "seal", REASON, user_id="alice")

    assert result.cascaded == [raw, sibling]
    assert SECRET not in await shown(client)
    assert await listed(client) == {other}
    source_step = ("visible", "sealed", f"{REASON} (source of {fact})")
    assert await exposure_steps(client, raw) == [source_step]
    sibling_step = ("visible", "sealed", f"{REASON} (derived from {raw})")
    assert await exposure_steps(client, sibling) == [sibling_step]


async def test_a_procedure_from_a_session_with_a_sealed_turn_is_sealed(client):
    written = await client.add(
        messages=[
            {"role": "user", "content": f"app/db.py 连不上预发库，连接时要带暗号 {SECRET}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "app/db.py"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "DB_HOST = 'staging-db'"},
            {
                "role": "assistant",
                "content": f"把暗号 {SECRET} 放进环境变量 DB_TOKEN，app/db.py 从环境读取。",
            },
        ],
        user_id="alice",
    )
    [procedure] = written.procedure_ids
    query = "app/db.py 连不上预发库"
    [found] = (await client.search(query, user_id="alice", procedure_limit=3)).memories.procedures
    assert found.id == procedure and SECRET in found.content

    result = await client.govern(written.raw_ids[0], "seal", REASON, user_id="alice")

    assert procedure in result.cascaded
    after = await client.search(query, user_id="alice", procedure_limit=3)
    assert after.memories.procedures == []
    item = await client.get(procedure, user_id="alice")
    assert item.content == SEALED and item.procedure is None


async def test_a_derived_pattern_citing_a_sealed_memory_is_sealed(tmp_path):
    client = MemoryClient(
        mode="dual", storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    )
    async with client:
        written = [
            await client.add(content=text, user_id="alice")
            for text in ("我每天早上喝咖啡", "下午也会喝一杯咖啡提神", "周末去咖啡馆写代码")
        ]
        facts = [w.decisions[0].memory_id for w in written]
        [pattern] = (await client.digest()).derived_ids

        async def derived() -> list:
            found = await client.search("咖啡", user_id="alice", derived_context_limit=3)
            return found.memories.derived

        assert [d.id for d in await derived()] == [pattern]

        result = await client.govern(facts[0], "seal", "不该记下", user_id="alice")

        assert result.cascaded == [written[0].raw_ids[0], pattern]
        assert await derived() == []
        assert (await client.get(pattern, user_id="alice")).content == SEALED
        step = ("visible", "sealed", f"不该记下 (derived from {facts[0]})")
        assert await exposure_steps(client, pattern) == [step]
        # the pattern's other evidence was not taken from the sealed fact: it stays
        assert await listed(client) == set(facts[1:])


async def test_the_lineage_stays_within_its_tenant_and_user(client):
    raw, extracted, other = await conversation(client)
    _, bobs, bobs_other = await conversation(client, user_id="bob")
    acme = MemoryClient(engine=client.engine, scope=Scope(tenant="acme"))
    _, acmes, acmes_other = await conversation(acme)
    # records that cite alice's turn though they are not hers: no write makes these
    strays = {
        "bob": new_payload(
            new_id(),
            f"抄录：{SECRET}",
            layer="fact",
            scope=client.scope.with_(user_id="bob"),
            evidence=[raw],
        ),
        "acme": new_payload(
            new_id(),
            f"抄录：{SECRET}",
            layer="fact",
            scope=Scope(tenant="acme", user_id="alice"),
            evidence=[raw],
        ),
    }
    await client.engine.insert(list(strays.values()), [p["content"] for p in strays.values()])

    result = await client.govern(raw, "seal", REASON, user_id="alice")

    assert result.cascaded == extracted
    assert await listed(client) == {other}
    assert await listed(client, "bob") >= {*bobs, bobs_other}
    assert await listed(acme) >= {*acmes, acmes_other}
    assert SECRET in await shown(client, "bob") and SECRET in await shown(acme)
    assert (await client.history(strays["bob"]["id"])).current.exposure_state == "visible"
    assert (await acme.history(strays["acme"]["id"])).current.exposure_state == "visible"


async def test_tombstone_reaches_the_lineage_as_tombstone(client):
    raw, extracted, other = await conversation(client)

    result = await client.govern(raw, "tombstone", "用户要求删除", user_id="alice")

    assert result.cascaded == extracted
    for memory_id in extracted:
        current = (await client.history(memory_id)).current
        assert (current.exposure_state, current.content) == ("tombstoned", TOMBSTONED)
    assert await listed(client) == {other}
    assert SECRET not in await shown(client)


async def test_a_governed_source_keeps_its_exposure_and_still_reaches_its_lineage(client):
    raw, (fact, sibling), _ = await conversation(client)
    # as a store written before lineage was governed: the turn tombstoned, its memories visible
    turn = await client.engine.get(raw, "local")
    await hide(client.engine, turn, "tombstoned", "用户要求删除", "tombstone")

    result = await client.govern(fact, "seal", REASON, user_id="alice")

    assert result.cascaded == [sibling]
    assert await exposure_steps(client, raw) == [("visible", "tombstoned", "用户要求删除")]
    assert (await client.history(raw)).current.content == TOMBSTONED
    step = ("visible", "sealed", f"{REASON} (derived from {raw})")
    assert await exposure_steps(client, sibling) == [step]


async def test_derive_lesson_keeps_the_lesson_and_seals_the_lineage(client):
    raw, (fact, sibling), other = await conversation(client)
    lesson_text = "不要把保险柜暗号记在记忆里，放进密码管理器"

    result = await client.govern(
        fact, "derive_lesson", REASON, lesson_content=lesson_text, user_id="alice"
    )

    assert result.cascaded == [raw, sibling]
    assert SECRET not in await shown(client)
    recalled = (await client.recall("保险柜暗号 密码管理器", user_id="alice")).atoms
    assert [a.content for a in recalled if a.atom_id == result.lesson_atom_id] == [lesson_text]
    assert await listed(client) == {other, result.lesson_atom_id}
    lesson = await client.history(result.lesson_atom_id)
    assert lesson.current.exposure_state == "visible" and lesson.relations.related_lessons == [fact]


@pytest.mark.parametrize("action", ["quarantine", "release"])
async def test_reversible_actions_touch_only_the_target(client, action):
    raw, extracted, _ = await conversation(client)
    if action == "release":
        await client.govern(raw, "quarantine", "待确认", user_id="alice")
    result = await client.govern(raw, action, "待确认", user_id="alice")
    assert result.cascaded == []
    assert await listed(client) >= set(extracted)
