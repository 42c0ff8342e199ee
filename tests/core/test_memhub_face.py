"""The MemHub face (spec/memhub-quickstart.zh.md): add, search, layers, the judge, and one engine
with HMG.
"""

from __future__ import annotations

import pytest

from memhub import InvalidInputError, InvalidTransitionError, MemoryClient, NotFoundError
from memhub.retrieval.formatter import format_memories
from memhub.testing import HashEmbedder, ScriptedLLM


async def test_quickstart_profile_with_evolution_chain(client):
    await client.add(content="我最爱的编程语言是 Java，已经用了5年。", user_id="alice")
    res = await client.search(query="用户的编程语言偏好", user_id="alice")
    assert [m.content for m in res.memories.profile] == ["我最爱的编程语言是 Java，已经用了5年"]
    update = await client.add(content="我现在最喜欢的编程语言是 Python", user_id="alice")
    assert update.decisions[0].action == "OVERRIDE"
    old_id = update.decisions[0].targets[0]
    profile = (await client.search(query="编程语言偏好", user_id="alice")).memories.profile
    assert [m.content for m in profile] == ["我现在最喜欢的编程语言是 Python"]
    assert profile[0].evolution_chain == [old_id]


async def test_an_add_names_the_memories_it_made_beside_the_raw_record(client):
    written = await client.add(
        content="We use Vue 3 for the frontend and Go for the backend.", user_id="alice"
    )
    (fact,) = written.memory_ids
    assert (await client.get(written.memory_id)).layer == "raw"  # the spec's L0_RAW id
    assert (await client.get(fact)).content == written.decisions[0].candidate
    switched = await client.add(
        content="We switched the frontend from Vue 3 to React.", user_id="alice"
    )
    (decision,) = switched.decisions
    assert decision.action == "OVERRIDE" and decision.kept  # Go stays, as a memory of its own
    assert switched.memory_ids == [decision.memory_id, *decision.kept]
    current = {m.id for m in await client.list(user_id="alice")}
    assert set(switched.memory_ids) == current
    assert (await client.add(content="谢谢！", user_id="alice")).memory_ids == []


async def test_messages_keep_one_raw_record_per_turn_and_drop_system(client):
    result = await client.add(
        messages=[
            {"role": "system", "content": "You are a helpful assistant. SYSTEM-PROMPT-TEXT"},
            {
                "role": "user",
                "content": "我住在上海",
                "id": "m-1",
                "timestamp": "2026-07-01T09:00:00Z",
            },
            {"role": "assistant", "content": "好的，记住了"},
            {"role": "user", "content": "下个月要搬去北京工作", "id": "m-3"},
        ],
        user_id="alice",
        session_id="s1",
    )
    assert len(result.raw_ids) == 3 and result.memory_id == result.raw_ids[0]
    assert result.extracted_count == 2 and result.commit_passed
    turns = (await client.search_conversation("上海", user_id="alice")).turns
    first = next(t for t in turns if t.content == "我住在上海")
    assert (first.message_id, first.role, first.session_id, first.occurred_at) == (
        "m-1",
        "user",
        "s1",
        "2026-07-01T09:00:00Z",
    )
    everything = (
        await client.search_conversation("assistant system prompt", user_id="alice", limit=50)
    ).turns
    assert all("SYSTEM-PROMPT-TEXT" not in t.content for t in everything)
    groups = (await client.search("北京 上海", user_id="alice")).memories
    assert [m.content for m in groups.proactive] == ["下个月要搬去北京工作"]
    assert [m.content for m in groups.profile] == ["我住在上海"]


async def test_tool_outputs_are_never_stored(client):
    await client.add(
        messages=[
            {"role": "user", "content": "读一下配置"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "cfg.toml"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "TOOL-OUTPUT-SECRET-LINE"},
            {"role": "assistant", "content": "配置里用的是 Redis 7"},
        ],
        user_id="alice",
    )
    points, _ = await client.engine.store.scroll("memories", None, limit=1000)
    assert all("TOOL-OUTPUT-SECRET-LINE" not in str(p.payload) for p in points)


_SESSION = [
    {"role": "user", "content": "我住在上海", "id": "m1"},
    {"role": "assistant", "content": "好的，记住了", "id": "m2"},
]


def _echo_extractor(system, user):
    """Extractor: every user line of the prompt is a candidate. Judge: ADD."""
    from memhub.providers.llm_roles import EXTRACT_PROMPT

    if system == EXTRACT_PROMPT:
        lines = [line.split(": ", 1)[1] for line in user.splitlines() if "] user: " in line]
        return {"candidates": [{"text": text, "layer": "fact", "source_ids": []} for text in lines]}
    return {"verdicts": [{"index": 0, "action": "ADD"}]}


async def test_a_retried_add_stores_nothing_twice_and_calls_no_model(tmp_path):
    llm = ScriptedLLM(_echo_extractor)
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as client:
        first = await client.add(messages=_SESSION, user_id="alice", session_id="s1")
        calls = llm.calls
        again = await client.add(messages=_SESSION, user_id="alice", session_id="s1")
        assert again.raw_ids == first.raw_ids and again.memory_id == first.memory_id
        assert (again.extracted_count, again.commit_passed, again.decisions) == (0, False, [])
        assert llm.calls == calls
        turns = (await client.search_conversation("上海", user_id="alice", limit=20)).turns
        assert sorted(t.message_id for t in turns) == ["m1", "m2"]
        assert [m.content for m in await client.list(user_id="alice")] == ["我住在上海"]


async def test_a_resent_thread_adds_only_its_new_messages(tmp_path):
    llm = ScriptedLLM(_echo_extractor)
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as client:
        first = await client.add(messages=_SESSION, user_id="alice")
        thread = [*_SESSION, {"role": "user", "content": "我在字节跳动工作", "id": "m3"}]
        result = await client.add(messages=thread, user_id="alice")
        assert result.raw_ids[:2] == first.raw_ids and len(set(result.raw_ids)) == 3
        assert [d.candidate for d in result.decisions] == [
            "我在字节跳动工作"
        ]  # the old turn is not extracted again
        from memhub.providers.llm_roles import EXTRACT_PROMPT

        assert (
            "我住在上海"
            not in [user for system, user in llm.prompts if system == EXTRACT_PROMPT][-1]
        )
        turns = (await client.search_conversation("上海 字节跳动", user_id="alice", limit=20)).turns
        assert sorted(t.message_id for t in turns) == ["m1", "m2", "m3"]


async def test_a_retried_add_is_recognised_among_many_reused_ids_and_texts(client):
    """A per-conversation counter reuses ids, and short replies repeat: the retry of one
    add must still find its own turns among every (id, text) pair stored before."""
    texts = ["ok", "好的", "thanks", "嗯", "sure", "收到", "yes", "对"]
    ids = [f"m{i}" for i in range(len(texts))]
    for shift in range(len(texts)):  # 64 raw turns, each id with each text once
        rotated = texts[shift:] + texts[:shift]
        await client.add(
            messages=[
                {"role": "user", "content": t, "id": i} for i, t in zip(ids, rotated, strict=True)
            ],
            user_id="alice",
            session_id="s1",
        )
    before = await client.conversation(user_id="alice", session_id="s1")
    last = texts[-1:] + texts[:-1]  # the newest add, retried
    again = await client.add(
        messages=[{"role": "user", "content": t, "id": i} for i, t in zip(ids, last, strict=True)],
        user_id="alice",
        session_id="s1",
    )
    after = await client.conversation(user_id="alice", session_id="s1")
    assert len(before.turns) == len(after.turns) == 64
    assert set(again.raw_ids) <= {t.id for t in before.turns}


async def test_only_the_same_id_with_the_same_text_in_the_same_scope_is_a_repeat(client):
    await client.add(messages=_SESSION, user_id="alice")
    reused_id = await client.add(
        messages=[{"role": "user", "content": "我搬到北京了", "id": "m1"}], user_id="alice"
    )
    other_session = await client.add(messages=_SESSION[:1], user_id="alice", session_id="s2")
    assert other_session.raw_ids != [] and other_session.memory_id not in reused_id.raw_ids
    other_user = await client.add(messages=_SESSION, user_id="bob")
    no_ids = [{k: v for k, v in m.items() if k != "id"} for m in _SESSION]
    await client.add(messages=no_ids, user_id="carol")
    await client.add(messages=no_ids, user_id="carol")
    assert reused_id.commit_passed and other_user.commit_passed
    alice = (await client.search_conversation("上海 北京", user_id="alice", limit=20)).turns
    assert sorted(t.content for t in alice) == [
        "好的，记住了",
        "我住在上海",
        "我住在上海",
        "我搬到北京了",
    ]
    assert sorted(t.session_id or "" for t in alice) == ["", "", "", "s2"]
    assert len((await client.search_conversation("上海", user_id="bob", limit=20)).turns) == 2
    assert (
        len((await client.search_conversation("上海", user_id="carol", limit=20)).turns) == 4
    )  # no ids: no way to tell


async def test_chit_chat_only_keeps_the_raw_record(client):
    result = await client.add(
        messages=[{"role": "user", "content": "好的，记住了"}], user_id="alice"
    )
    assert result.extracted_count == 0 and not result.commit_passed
    assert len((await client.search_conversation("记住", user_id="alice")).turns) == 1


@pytest.mark.parametrize(
    ("first", "second", "action", "current"),
    [
        ("我住在上海", "我搬到北京了", "OVERRIDE", ["我搬到北京了"]),
        ("I live in Paris", "I moved to Berlin", "OVERRIDE", ["I moved to Berlin"]),
        ("我在字节跳动工作", "我现在在阿里巴巴工作", "OVERRIDE", ["我现在在阿里巴巴工作"]),
        (
            "My favourite colour is blue",
            "My favourite colour is green",
            "OVERRIDE",
            ["My favourite colour is green"],
        ),
        (
            "项目用 PostgreSQL 16 做主数据库",
            "项目用 PostgreSQL 17 做主数据库",
            "OVERRIDE",
            ["项目用 PostgreSQL 17 做主数据库"],
        ),
        ("每周三下午开周会", "周会改到周五下午了", "OVERRIDE", ["周会改到周五下午了"]),
        (
            "We deploy with Jenkins",
            "We migrated from Jenkins to GitHub Actions",
            "OVERRIDE",
            ["We migrated from Jenkins to GitHub Actions"],
        ),
        ("我喜欢喝咖啡", "我喜欢喝咖啡", "NOOP", ["我喜欢喝咖啡"]),
        ("I like coffee", "I also like tea", "SUPPLEMENT", ["I also like tea", "I like coffee"]),
        ("我会写 Java", "我也会写 Go", "SUPPLEMENT", ["我也会写 Go", "我会写 Java"]),
    ],
)
async def test_judge_end_to_end_with_the_real_embedder(
    tmp_path, e5, first, second, action, current
):
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(content=first, user_id="u")
        result = await client.add(content=second, user_id="u")
        assert [d.action for d in result.decisions] == [action]
        listed = sorted(m.content for m in await client.list(user_id="u"))
        assert listed == sorted(current)


async def test_llm_calls_per_add_at_most_two_and_judge_skipped_below_threshold(tmp_path):
    def script(system, user):
        if "extract" in system:
            return {
                "candidates": [{"text": user.split(": ", 1)[1], "layer": "fact", "source_ids": []}]
            }
        return {"verdicts": [{"index": 0, "action": "ADD"}]}

    llm = ScriptedLLM(script)
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as client:
        await client.add(content="the staging database is called orion", user_id="u")
        assert llm.calls == 1  # nothing similar yet: no judge call
        await client.add(content="the staging database is called orion-2", user_id="u")
        assert llm.calls == 3


def _override_what_you_are_shown(system, user):
    """Extractor: the user's sentence. Judge: OVERRIDE the first memory it is shown, else ADD."""
    import json

    from memhub.providers.llm_roles import EXTRACT_PROMPT

    if system == EXTRACT_PROMPT:
        return {
            "candidates": [{"text": user.split(": ", 1)[1], "layer": "profile", "source_ids": []}]
        }
    return {
        "verdicts": [
            {"index": item["index"], "action": "OVERRIDE", "targets": [item["existing"][0]["id"]]}
            if item["existing"]
            else {"index": item["index"], "action": "ADD"}
            for item in json.loads(user)
        ]
    }


@pytest.mark.parametrize(
    ("old", "new", "judged"),
    [
        # a changed value: e5 relates these weakly (cosine ~0.89), the judge must still see them
        ("My manager is Dana", "My new manager is Priya", True),
        ("I drive a Toyota", "I sold my Toyota and bought a Tesla", True),
        ("我在字节跳动工作", "我跳槽到阿里巴巴了", True),
        # unrelated: no judge call, the threshold saves it
        ("I work at Google", "I am allergic to peanuts", False),
        ("I live in Paris", "My daughter plays the violin", False),
    ],
)
async def test_an_llm_judge_at_the_default_threshold_sees_changed_values(
    tmp_path, e5, old, new, judged
):
    llm = ScriptedLLM(_override_what_you_are_shown)
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, llm=llm, cwd=tmp_path) as client:
        assert client.settings.reconcile_relation_threshold == 0.6
        await client.add(content=old, user_id="u")
        result = await client.add(content=new, user_id="u")
        assert llm.calls == (
            3 if judged else 2
        )  # two extractions, and the judge only for a changed value
        assert [d.action for d in result.decisions] == ["OVERRIDE" if judged else "ADD"]
        current = sorted(m.content for m in await client.list(user_id="u"))
        assert current == ([new] if judged else sorted([old, new]))


async def test_update_get_delete_list(client):
    written = await client.add(content="我住在上海", user_id="alice")
    first = written.decisions[0].memory_id
    second = await client.update(first, "我住在杭州", user_id="alice")
    item = await client.get(second, user_id="alice")
    assert item.content == "我住在杭州" and item.evolution_chain == [first]
    assert [m.id for m in await client.list(user_id="alice")] == [second]
    assert {m.id for m in await client.list(user_id="alice", include_history=True)} == {
        first,
        second,
    }
    await client.delete(second, user_id="alice")
    assert await client.list(user_id="alice") == []
    assert (await client.search("住", user_id="alice")).memories.all() == []
    with pytest.raises(NotFoundError):
        await client.get(second, user_id="bob")


async def test_deleting_a_replaced_version_is_refused_naming_the_current_one(client):
    first = (await client.add(content="我住在上海", user_id="alice")).decisions[0].memory_id
    second = await client.update(first, "我住在杭州", user_id="alice")
    third = await client.update(second, "我住在苏州", user_id="alice")
    with pytest.raises(InvalidTransitionError, match=f"current version {third}"):
        await client.delete(first, user_id="alice")
    history = {m.id: m.status for m in await client.list(user_id="alice", include_history=True)}
    assert history == {first: "superseded", second: "superseded", third: "active"}


@pytest.mark.parametrize(
    ("fact", "hearsay"),
    [
        ("API 网关用 Kong", "听说 API 网关用 Kong"),
        ("The API gateway uses Kong", "I heard the API gateway uses Kong"),
    ],
)
async def test_hearsay_of_a_stored_fact_is_reported_not_silently_dropped(client, fact, hearsay):
    stored = (await client.add(content=fact, user_id="alice")).decisions[0].memory_id
    (decision,) = (await client.add(content=hearsay, user_id="alice")).decisions
    assert decision.action == "NOOP" and decision.targets == [stored]
    assert decision.suggested_correction == "demote"
    assert stored in decision.note and "actual" in decision.note and "possible" in decision.note
    (kept,) = await client.list(user_id="alice")  # nothing applied on its own
    assert kept.id == stored and kept.content == fact


async def test_updating_a_replaced_version_is_refused_in_the_faces_own_words(client):
    first = (await client.add(content="I live in Boston", user_id="alice")).decisions[0].memory_id
    second = await client.update(first, "I live in Denver", user_id="alice")
    third = await client.update(second, "I live in Austin", user_id="alice")
    with pytest.raises(InvalidTransitionError, match=f"; update the latest version {third}$"):
        await client.update(first, "I live in Seattle", user_id="alice")
    assert [m.content for m in await client.list(user_id="alice")] == ["I live in Austin"]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"content": "x", "messages": [{"role": "user", "content": "x"}]},
        {"content": "  "},
        {"messages": []},
        {"messages": [{"role": "wizard", "content": "x"}]},
        {"messages": "not a list"},
        {"messages": [{"role": "user", "content": [{"text": 5}]}]},
        {"messages": [{"role": "user", "content": ["fine", {"type": "text", "text": ["a"]}]}]},
        {"content": "a fact about tea", "user_id": "   "},
    ],
)
async def test_bad_add_input_is_refused_and_changes_nothing(client, kwargs):
    before = await client.stats()
    with pytest.raises(InvalidInputError):
        await client.add(**{"user_id": "alice", **kwargs})
    assert (await client.stats()).atoms == before.atoms


async def test_add_requires_user_id(client):
    with pytest.raises(InvalidInputError, match="user_id"):
        await client.add(content="hello world fact", user_id="")


async def test_hmg_and_memhub_share_one_engine(client):
    written = await client.add(content="项目用 PostgreSQL 16 做主数据库", user_id="alice")
    fact = written.decisions[0].memory_id
    assert [a.atom_id for a in (await client.recall("PostgreSQL", user_id="alice")).atoms] == [fact]
    fixed = await client.correct(
        fact, "replace", "upgrade", new_content="项目用 PostgreSQL 17 做主数据库", user_id="alice"
    )
    normal = (await client.search("PostgreSQL", user_id="alice")).memories.normal
    assert [m.id for m in normal] == [fixed.new_atom_id] and normal[0].evolution_chain == [fact]
    memorized = await client.memorize("部署用 ECS", user_id="alice")
    assert memorized.atom_id in {
        m.id for m in (await client.search("部署", user_id="alice")).memories.all()
    }


async def test_search_groups_only_when_asked_and_formatter(client):
    await client.add(content="我叫小明，我喜欢川菜", user_id="alice")
    res = await client.search("用户喜欢吃什么", user_id="alice")
    assert res.memories.procedures is None and res.memories.derived is None
    assert set(res.memories.to_dict()) == {"profile", "proactive", "normal"}
    block = format_memories(res.memories.to_dict())
    assert "用户画像" in block and "川菜" in block
    assert format_memories({"normal": []}) == ""


async def test_metadata_filters(client):
    await client.add(content="订单系统用 Kafka", user_id="alice", metadata={"team": "orders"})
    await client.add(content="支付系统用 RabbitMQ", user_id="alice", metadata={"team": "payments"})
    hits = (
        await client.search("消息队列 系统", user_id="alice", filters={"team": "payments"})
    ).memories.all()
    assert [m.content for m in hits] == ["支付系统用 RabbitMQ"]
    with pytest.raises(InvalidInputError):
        await client.search("x", user_id="alice", filters={"team": {"nested": 1}})


async def test_dual_mode_digest_runs_once_per_scope(tmp_path):
    async with MemoryClient(
        mode="dual", storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        for text in ["我每天早上喝咖啡", "下午也会喝一杯咖啡提神", "周末去咖啡馆写代码"]:
            await client.add(content=text, user_id="alice")
        first = await client.digest()
        assert first.processed == 1 and len(first.derived_ids) == 1
        assert (await client.digest()).processed == 0
        plain = await client.search("咖啡", user_id="alice")
        assert plain.memories.derived is None
        derived = (
            await client.search("咖啡", user_id="alice", derived_context_limit=3)
        ).memories.derived
        assert [d.id for d in derived] == first.derived_ids and "咖啡" in derived[0].content


async def test_system1_digest_processes_nothing(client):
    await client.add(content="我每天早上喝咖啡", user_id="alice")
    assert (await client.digest()).processed == 0


async def test_an_override_carries_the_new_writes_metadata(client):
    await client.add(content="我住在上海", user_id="alice", metadata={"source": "chat-1"})
    result = await client.add(
        content="我现在住在北京", user_id="alice", metadata={"source": "chat-2"}
    )
    assert result.decisions[0].action == "OVERRIDE"
    assert (await client.get(result.decisions[0].memory_id, user_id="alice")).metadata == {
        "source": "chat-2"
    }
