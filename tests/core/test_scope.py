"""Scope: inferred from the git checkout, isolating repositories, branches and users."""

from __future__ import annotations

import pytest

from memhub import ANY, MemoryClient
from memhub.scope import git_scope, repository_from_url
from memhub.testing import HashEmbedder


def make_checkout(root, origin: str | None, branch: str = "main"):
    git = root / ".git"
    git.mkdir(parents=True)
    (git / "HEAD").write_text(f"ref: refs/heads/{branch}\n")
    config = "[core]\n\tbare = false\n"
    if origin:
        config += (
            f'[remote "origin"]\n\turl = {origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        )
    (git / "config").write_text(config)
    return root


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:mem0ai/mem0.git",
        "https://github.com/mem0ai/mem0",
        "https://github.com/mem0ai/mem0.git/",
        "ssh://git@gitlab.example.com:2222/mem0ai/mem0.git",
        "/home/dev/src/mem0ai/mem0/.",
    ],
)
def test_repository_from_origin_url(url):
    assert repository_from_url(url) == "mem0ai/mem0"


def test_git_scope_reads_origin_branch_and_works_from_a_subfolder(tmp_path):
    repo = make_checkout(tmp_path / "mem0", "git@github.com:mem0ai/mem0.git", branch="feature/x")
    (repo / "src" / "pkg").mkdir(parents=True)
    scope = git_scope(repo / "src" / "pkg")
    assert scope == {"workspace": str(repo), "repository": "mem0ai/mem0", "branch": "feature/x"}
    assert git_scope(tmp_path) == {}
    bare = make_checkout(tmp_path / "local-only", None)
    assert git_scope(bare)["repository"] == "local/local-only"


async def test_memories_stay_in_their_repository_and_branch_unless_widened(tmp_path):
    store = tmp_path / "store"
    a_main = make_checkout(tmp_path / "a", "git@github.com:org/a.git", "main")
    b_main = make_checkout(tmp_path / "b", "git@github.com:org/b.git", "main")
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=a_main) as client:
        await client.memorize("项目用 PostgreSQL 16 做主数据库")
        await client.memorize("release branch uses Redis 7", branch="release")
        assert [a.content for a in (await client.recall("PostgreSQL 数据库")).atoms][
            0
        ] == "项目用 PostgreSQL 16 做主数据库"
        assert all("Redis" not in a.content for a in (await client.recall("Redis")).atoms)
        assert any(
            "Redis" in a.content for a in (await client.recall("Redis", branch="release")).atoms
        )
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=b_main) as client:
        assert all(
            "PostgreSQL" not in a.content for a in (await client.recall("PostgreSQL 数据库")).atoms
        )
        widened = (await client.recall("PostgreSQL 数据库", repository=ANY, branch=ANY)).atoms
        assert widened and widened[0].content == "项目用 PostgreSQL 16 做主数据库"


async def test_unbound_memories_are_seen_from_every_checkout(tmp_path):
    store = tmp_path / "store"
    outside = tmp_path / "plain"
    outside.mkdir()
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=outside) as client:
        await client.memorize("I prefer answers in Chinese")
    repo = make_checkout(tmp_path / "r", "https://github.com/org/r", "dev")
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=repo) as client:
        assert [a.content for a in (await client.recall("answers in Chinese")).atoms] == [
            "I prefer answers in Chinese"
        ]


async def test_users_never_see_each_other(client):
    await client.add(content="我住在上海", user_id="alice")
    await client.add(content="我住在柏林", user_id="bob")
    alice = [m.content for m in (await client.search("住在哪里", user_id="alice")).memories.all()]
    bob = [m.content for m in (await client.search("住在哪里", user_id="bob")).memories.all()]
    assert alice == ["我住在上海"] and bob == ["我住在柏林"]
    assert (await client.recall("住在")).atoms == []  # no user: only memories without a user
    assert len((await client.recall("住在", user_id="alice")).atoms) == 1


async def test_repository_wildcard_alone_searches_every_project_on_any_branch(tmp_path):
    store = tmp_path / "store"
    a_main = make_checkout(tmp_path / "a", "git@github.com:org/a.git", "main")
    b_dev = make_checkout(tmp_path / "b", "git@github.com:org/b.git", "dev")
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=a_main) as client:
        await client.memorize("项目用 PostgreSQL 16 做主数据库")
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=b_dev) as client:
        widened = (await client.recall("PostgreSQL 数据库", repository=ANY)).atoms
        assert [a.content for a in widened] == ["项目用 PostgreSQL 16 做主数据库"]
        # a branch given with the wildcard still narrows
        assert (await client.recall("PostgreSQL 数据库", repository=ANY, branch="dev")).atoms == []
        # naming the other project reads it on any branch: "dev" is a branch of this one
        named = (await client.recall("PostgreSQL 数据库", repository="org/a")).atoms
        assert [a.content for a in named] == ["项目用 PostgreSQL 16 做主数据库"]
        assert (
            await client.recall("PostgreSQL 数据库", repository="org/a", branch="dev")
        ).atoms == []


async def test_a_named_workspace_narrows_recall(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        await client.memorize("用 pnpm 管理依赖")
        await client.memorize("前端用 Vite 构建", workspace="/home/dev/web")
        assert (await client.recall("依赖 构建", workspace="/nonexistent")).atoms == []
        found = (await client.recall("依赖 构建", workspace="/home/dev/web")).atoms
        assert [a.content for a in found] == ["前端用 Vite 构建"]


async def test_stats_per_scope_when_asked(client):
    await client.add(content="我住在上海", user_id="alice")
    await client.add(content="我住在北京，我喜欢咖啡", user_id="bob")
    everything = await client.stats()
    alice, bob = await client.stats(user_id="alice"), await client.stats(user_id="bob")
    assert alice.scope == {"user_id": "alice"} and everything.scope == {}
    assert 0 < alice.atoms < bob.atoms and alice.atoms + bob.atoms == everything.atoms
    assert (await client.stats(user_id="nobody")).atoms == 0
