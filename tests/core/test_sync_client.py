"""The sync face: same methods and signatures as the async client, and a clear error
inside a loop.
"""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys

import pytest

import memhub
from memhub import MemoryClient, SyncMemoryClient, UsageError
from memhub.testing import HashEmbedder


def _public(cls):
    return {
        n: inspect.signature(m)
        for n, m in inspect.getmembers(cls, inspect.isfunction)
        if not n.startswith("_")
    }


def test_sync_and_async_clients_expose_the_same_operations():
    async_api = _public(MemoryClient)
    sync_api = _public(SyncMemoryClient)
    lifecycle = {"open", "aclose", "close", "submit"}  # submit: the sync face's bridge to its loop
    assert set(async_api) - lifecycle == set(sync_api) - lifecycle
    for name in set(async_api) - lifecycle:
        assert str(sync_api[name]) == str(async_api[name]), name
        # one definition: the blocking face documents each operation with the async one's words
        assert getattr(SyncMemoryClient, name).__doc__ == getattr(MemoryClient, name).__doc__, name
    assert str(inspect.signature(SyncMemoryClient)) == str(inspect.signature(MemoryClient))


def test_public_surface_is_pinned():
    assert sorted(memhub.__all__) == sorted(
        [
            "ANY",
            "ConflictError",
            "EmbedderMismatchError",
            "InvalidInputError",
            "InvalidTransitionError",
            "MemHubError",
            "MemoryClient",
            "NotFoundError",
            "ProviderError",
            "Settings",
            "StoreLockedError",
            "SyncMemoryClient",
            "UsageError",
        ]
    )


def test_sync_client_round_trip(tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path) as client:
        first = client.memorize("项目用 PostgreSQL 16 做主数据库")
        assert client.memorize("项目用 PostgreSQL 16 做主数据库").effect == "no_op"
        assert client.recall("PostgreSQL").atoms[0].atom_id == first.atom_id
        written = client.add(content="我最爱的编程语言是 Java", user_id="alice")
        assert written.commit_passed
        assert (
            client.get(written.decisions[0].memory_id, user_id="alice").content
            == "我最爱的编程语言是 Java"
        )
    with pytest.raises(UsageError, match="closed"):
        client.stats()


def test_sync_search_and_list_narrow_to_a_session_only_when_asked(tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path) as client:
        client.add(content="我养了一只橘猫", user_id="alice", session_id="a")
        client.add(content="我的猫叫团子", user_id="alice", session_id="b")
        everywhere = client.search("猫", user_id="alice").memories.all()
        assert sorted(m.session_id for m in everywhere) == ["a", "b"]
        only_b = client.search("猫", user_id="alice", session_id="b").memories.all()
        assert [m.session_id for m in only_b] == ["b"]
        assert [m.session_id for m in client.list(user_id="alice", session_id="a")] == ["a"]


async def test_sync_client_inside_a_running_loop_is_a_clear_error(tmp_path):
    with pytest.raises(UsageError, match="MemoryClient"):
        SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path)


_HOLD = (
    "import sys\n"
    "from memhub import SyncMemoryClient\n"
    "from memhub.testing import HashEmbedder\n"
    "c = SyncMemoryClient(storage_dir=sys.argv[1], embed=HashEmbedder(), cwd=sys.argv[2])\n"
    "print('open', flush=True)\n"
    "sys.stdin.read()\n"
)


def test_another_process_on_the_same_store_is_refused_naming_the_holder(tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path / "s"), str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "open"
        with pytest.raises(memhub.StoreLockedError, match=f"process {child.pid} .*memhub serve"):
            SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path)
    finally:
        child.stdin.close()
        child.wait(60)
        child.stdout.close()


def test_clients_on_one_store_in_one_process_share_its_engine(tmp_path):
    """A sync and an async client, or two of either, on one folder: one engine, no lock error."""
    store = tmp_path / "s"
    with SyncMemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as first:
        first.memorize("项目用 PostgreSQL 16 做主数据库")
        with SyncMemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as second:
            assert second.recall("数据库").atoms[0].content.startswith("项目用 PostgreSQL")
            second.memorize("部署在 Kubernetes 上")

        async def from_async() -> list[str]:
            async with MemoryClient(storage_dir=store, cwd=tmp_path) as third:
                assert third.engine is first.async_client.engine
                return [a.content for a in (await third.recall("Kubernetes")).atoms]

        assert "部署在 Kubernetes 上" in asyncio.run(from_async())
        assert first.recall("Kubernetes").atoms  # the last client to close closes the store
    with SyncMemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as again:
        assert len(again.recall("数据库 Kubernetes", limit=10).atoms) == 2


def test_an_async_client_closes_from_sync_code_and_refuses_inside_a_loop(tmp_path):
    client = MemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path)
    asyncio.run(client.memorize("项目用 PostgreSQL 16 做主数据库"))

    async def inside() -> None:
        with pytest.raises(UsageError, match="await client.aclose"):
            client.close()

    asyncio.run(inside())
    assert asyncio.run(client.recall("数据库")).atoms  # the refused close changed nothing
    client.close()
    client.close()  # a second close does nothing
    # the store is released: another process opens it
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path / "s"), str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "open"
    finally:
        child.stdin.close()
        child.wait(60)
        child.stdout.close()
