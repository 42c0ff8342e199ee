"""A new statement that supersedes a memory leaves standing what it did not change: the
untouched part is kept as a memory of its own (zh and en), with the old one's provenance."""

from __future__ import annotations

import pytest

from memhub import MemoryClient
from memhub.providers.remainder import remainder


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ("我们项目用 Vue 3，后端是 Go", "我们前端已经从 Vue 3 换成 React 了", "我们项目后端是 Go"),
        ("我住在杭州，在阿里做前端", "我搬到上海了", "我在阿里做前端"),
        ("我们前端用 React，后端用 Go", "我们前端从 React 换成 Vue 了", "我们后端用 Go"),
        (
            "我们的数据库是 MongoDB，缓存用 Redis",
            "数据库从 MongoDB 迁到 PostgreSQL 了",
            "我们的缓存用 Redis",
        ),
        (
            "项目用 PostgreSQL 16 做主数据库，不用 MongoDB",
            "项目用 PostgreSQL 17 做主数据库",
            "项目不用 MongoDB",
        ),
        (
            "We use Vue 3 for the frontend and Go for the backend",
            "We switched the frontend from Vue 3 to React",
            "We use Go for the backend",
        ),
        (
            "I drink coffee every morning, it keeps me awake, and tea in the afternoon",
            "I quit coffee",
            "I drink tea in the afternoon",
        ),
        ("I live in Berlin and work at SAP", "I moved to Munich", "I work at SAP"),
        # one clause, two slots: the one the new words leave alone stays
        (
            "I work at Acme as a data engineer",
            "I left Acme, now I'm at Globex",
            "I'm a data engineer",
        ),
        ("我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动", "我是产品经理"),
        ("I work at Acme as a data engineer", "I'm now a data scientist", "I work at Acme"),
        ("我在阿里巴巴做产品经理", "我现在是设计师", "我在阿里巴巴工作"),
    ],
)
def test_the_part_a_change_does_not_touch_remains(old: str, new: str, kept: str) -> None:
    assert remainder(old, new) == kept


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("我住在上海", "我搬到北京了"),  # one clause: replaced whole
        ("我最爱的编程语言是 Java，已经用了5年", "我现在最喜欢的编程语言是 Python"),  # goes on
        ("I live in Berlin", "I moved to Munich"),
        ("我用 vim，每天都用 vim 写代码", "我从 vim 换成 VS Code 了"),  # each names the old value
        # both slots changed
        ("I work at Acme as a data engineer", "I'm a data scientist at Globex now"),
        # the change undone: "now I'm at Globex" goes on with "I left Acme"
        ("I left Acme, now I'm at Globex", "I work at Acme as a data engineer"),
        ("我从阿里巴巴离职了，现在在字节跳动", "我在阿里巴巴做产品经理"),
    ],
)
def test_nothing_remains_of_a_memory_replaced_whole(old: str, new: str) -> None:
    assert remainder(old, new) is None


@pytest.mark.parametrize(
    ("first", "change", "kept", "gone"),
    [
        (
            "我们项目用 Vue 3，后端是 Go",
            "我们前端已经从 Vue 3 换成 React 了",
            "后端是 Go",
            "Vue 3，",
        ),
        (
            "We use Vue 3 for the frontend and Go for the backend.",
            "We switched the frontend from Vue 3 to React.",
            "Go for the backend",
            "We use Vue 3",
        ),
    ],
)
async def test_a_change_of_one_value_keeps_its_neighbours_current(
    client, first, change, kept, gone
):
    await client.add(messages=[{"role": "user", "content": first}], user_id="u", session_id="s1")
    [old] = await client.list(user_id="u")
    old_id = old.id
    result = await client.add(
        messages=[{"role": "user", "content": change}], user_id="u", session_id="s2"
    )
    [decision] = result.decisions
    assert decision.action == "OVERRIDE" and decision.targets == [old_id]
    assert len(decision.kept) == 1
    current = {m.id: m.content for m in await client.list(user_id="u")}
    assert set(current) == {decision.memory_id, decision.kept[0]}
    assert kept in current[decision.kept[0]] and gone not in current[decision.kept[0]]
    # found again from a short query, and its history says where it came from
    found = await client.search("backend 后端", user_id="u")
    assert decision.kept[0] in {m.id for m in found.memories.normal + found.memories.profile}
    steps = (await client.history(decision.kept[0])).status_history
    assert any(f"kept from {old_id}" in (step.reason or "") for step in steps)
    assert (await client.get(old_id)).status == "superseded"


@pytest.mark.parametrize(
    ("first", "change", "kept"),
    [
        ("我们前端用 React，后端用 Go", "我们前端从 React 换成 Vue 了", "我们后端用 Go"),
        (
            "我们的数据库是 MongoDB，缓存用 Redis",
            "数据库从 MongoDB 迁到 PostgreSQL 了",
            "我们的缓存用 Redis",
        ),
    ],
)
async def test_what_remains_still_says_whose_it_is(e5, tmp_path, first, change, kept):
    # "后端用 Go" alone no longer says whose backend it is
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(messages=[{"role": "user", "content": first}], user_id="u", session_id="a")
        await client.add(
            messages=[{"role": "user", "content": change}], user_id="u", session_id="b"
        )
        current = sorted(m.content for m in await client.list(user_id="u"))
    assert current == sorted([change, kept])


@pytest.mark.parametrize(
    ("first", "change", "role"),
    [
        ("I work at Acme as a data engineer.", "I left Acme, now I'm at Globex.", "data engineer"),
        ("我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动", "产品经理"),
    ],
)
async def test_a_new_employer_keeps_the_role(client, first, change, role):
    await client.add(messages=[{"role": "user", "content": first}], user_id="u", session_id="a")
    result = await client.add(
        messages=[{"role": "user", "content": change}], user_id="u", session_id="b"
    )
    [decision] = result.decisions
    assert decision.action == "OVERRIDE" and len(decision.kept) == 1
    current = {m.id: m.content for m in await client.list(user_id="u")}
    assert set(current) == {decision.memory_id, decision.kept[0]}
    assert role in current[decision.kept[0]]
