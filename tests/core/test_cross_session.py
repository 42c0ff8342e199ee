"""A user's memory is one memory across sessions; an agent's memory is its own.

``session_id`` is provenance: a write from any session is reconciled with everything
the user said in earlier sessions. ``agent_id`` is a wall: an agent's private memory of
the user is reconciled only with that agent's memory.
"""

from __future__ import annotations

import pytest

from memhub import MemoryClient

BIKE = [{"role": "user", "content": "I own a red bike."}]


def _actions(result):
    return [d.action for d in result.decisions]


async def test_the_same_fact_in_a_second_session_is_a_noop(client):
    first = await client.add(messages=BIKE, user_id="u", session_id="a")
    second = await client.add(messages=BIKE, user_id="u", session_id="b")
    assert _actions(first) == ["ADD"]
    assert _actions(second) == ["NOOP"]
    facts = await client.list(user_id="u")
    assert [m.content for m in facts] == ["I own a red bike"]
    assert facts[0].session_id == "a"  # provenance stays on the record


async def test_memorize_dedupes_across_sessions(client):
    first = await client.memorize("The project uses PostgreSQL 16", session_id="a")
    second = await client.memorize("The project uses PostgreSQL 16", session_id="b")
    assert (first.effect, second.effect) == ("applied", "no_op")


async def test_a_value_change_in_a_later_session_supersedes_the_old_value(client):
    await client.add(
        messages=[{"role": "user", "content": "我住在上海"}], user_id="u", session_id="s1"
    )
    later = await client.add(
        messages=[{"role": "user", "content": "我搬到北京了"}], user_id="u", session_id="s2"
    )
    assert _actions(later) == ["OVERRIDE"]
    current = [m.content for m in await client.list(user_id="u")]
    assert current == ["我搬到北京了"]


async def test_an_agents_memory_is_reconciled_only_with_that_agent(client):
    await client.add(messages=BIKE, user_id="u", agent_id="coach", session_id="a")
    again = await client.add(messages=BIKE, user_id="u", agent_id="coach", session_id="b")
    other_agent = await client.add(messages=BIKE, user_id="u", agent_id="tutor")
    shared = await client.add(messages=BIKE, user_id="u")
    assert _actions(again) == ["NOOP"]
    assert _actions(other_agent) == ["ADD"]
    assert _actions(shared) == ["ADD"]
    assert len(await client.list(user_id="u", agent_id="coach")) == 1
    assert len(await client.list(user_id="u")) == 3  # an unnarrowed read sees every agent's


async def test_a_shared_write_never_retires_an_agents_memory(client):
    await client.add(
        messages=[{"role": "user", "content": "我住在上海"}], user_id="u", agent_id="coach"
    )
    await client.add(messages=[{"role": "user", "content": "我搬到北京了"}], user_id="u")
    coach = [m.content for m in await client.list(user_id="u", agent_id="coach")]
    assert coach == ["我住在上海"]


async def test_search_conversation_narrows_to_a_session_only_when_asked(client):
    await client.add(
        messages=[{"role": "user", "content": "我养了一只橘猫"}], user_id="u", session_id="a"
    )
    await client.add(
        messages=[{"role": "user", "content": "我的猫叫团子"}], user_id="u", session_id="b"
    )
    everywhere = await client.search_conversation("猫", user_id="u")
    only_b = await client.search_conversation("猫", user_id="u", session_id="b")
    assert {t.session_id for t in everywhere.turns} == {"a", "b"}
    assert {t.session_id for t in only_b.turns} == {"b"}


async def test_search_and_list_narrow_to_a_session_only_when_asked(client):
    await client.add(messages=BIKE, user_id="u", session_id="a")
    kayak = [{"role": "user", "content": "I own a green kayak."}]
    await client.add(messages=kayak, user_id="u", session_id="b")
    everywhere = (await client.search("what do I own", user_id="u")).memories.all()
    only_b = (await client.search("what do I own", user_id="u", session_id="b")).memories.all()
    assert sorted(m.session_id for m in everywhere) == ["a", "b"]
    assert [m.content for m in only_b] == ["I own a green kayak"]
    assert sorted(m.session_id for m in await client.list(user_id="u")) == ["a", "b"]
    only_a = await client.list(user_id="u", session_id="a")
    assert [m.content for m in only_a] == ["I own a red bike"]


async def test_a_new_version_belongs_to_the_session_that_said_it(e5, tmp_path):
    async with MemoryClient(storage_dir=tmp_path / "e5", embed=e5, cwd=tmp_path) as client:
        lived = [{"role": "user", "content": "我住在上海"}]
        moved = [{"role": "user", "content": "我上个月搬到北京了"}]
        await client.add(messages=lived, user_id="u", session_id="s1")
        later = await client.add(messages=moved, user_id="u", session_id="s2")
        assert _actions(later) == ["OVERRIDE"]
        assert [m.session_id for m in await client.list(user_id="u")] == ["s2"]
        found = (await client.search("我住在哪里", user_id="u", session_id="s2")).memories.all()
        assert [m.content for m in found] == ["我上个月搬到北京了"]


# A change said in other words than the stored value, in a later session: the old value is
# no longer current, and what the superseded memory said beside it still is.
CHANGES = [
    ("I work remotely from Lisbon.", "I'm now working from our London office.", "Lisbon", None),
    ("My partner is Sam.", "Sam and I broke up last month.", "partner is Sam", None),
    ("我的车是一辆丰田卡罗拉", "我把卡罗拉卖了，现在骑电动车上班", "丰田卡罗拉", None),
    ("我在学钢琴", "钢琴我放弃了，太难了", "在学钢琴", None),
    ("I sleep around midnight.", "These days I go to bed at 10pm.", "midnight", None),
    (
        "我们的数据库是 MongoDB，缓存用 Redis",
        "数据库从 MongoDB 迁到 PostgreSQL 了",
        "是 MongoDB",
        "缓存用 Redis",
    ),
    (
        "I'm Dana, a backend engineer at Fintory.",
        "I became a product manager last month.",
        "backend",
        "Dana",
    ),
    ("我是小林，杭州的前端工程师", "我转行做产品经理了", "前端工程师", "小林"),
    ("My boss is Karen.", "Karen retired, my new boss is Tom.", "is Karen", None),
    ("我儿子今年3岁", "我儿子上个月满4岁了", "3岁", None),
    (
        "I play tennis on Sundays and go hiking on Saturdays.",
        "I stopped playing tennis.",
        "play tennis",
        "hiking",
    ),
    ("我平时喝绿茶", "最近改喝咖啡了", "绿茶", None),
    ("I'm learning the guitar.", "I gave up on the guitar last year.", "learning", None),
    ("The release is every Thursday.", "Releases are on Mondays now.", "Thursday", None),
    ("我和阿杰在谈恋爱", "我跟阿杰分手了", "谈恋爱", None),
    ("我每周游泳三次", "我不游泳了，改练瑜伽", "每周游泳", None),
    (
        "I use Slack at work and Signal with friends.",
        "We replaced Slack with Teams at work.",
        "use Slack",
        "Signal",
    ),
    (
        "我们用 MySQL 存订单，用 Redis 做缓存",
        "订单库已经从 MySQL 换成 TiDB 了",
        "用 MySQL",
        "Redis",
    ),
    (
        "Our frontend is Angular and the backend is Django.",
        "We migrated the frontend from Angular to Svelte.",
        "is Angular",
        "Django",
    ),
]


@pytest.mark.parametrize(("first", "change", "stale", "kept"), CHANGES)
async def test_a_change_in_other_words_retires_the_old_value_and_keeps_the_rest(
    e5, tmp_path, first, change, stale, kept
):
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(messages=[{"role": "user", "content": first}], user_id="u", session_id="a")
        await client.add(
            messages=[{"role": "user", "content": change}], user_id="u", session_id="b"
        )
        current = [m.content for m in await client.list(user_id="u")]
    assert not [m for m in current if stale in m], current
    assert kept is None or [m for m in current if kept in m], current
