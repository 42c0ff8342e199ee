"""The local hub on loopback: hub.json, RemoteClient, and MemoryClient reaching a held store through
it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from memhub import MemHubError, MemoryClient, StoreLockedError, SyncMemoryClient
from memhub.remote import HUB_FILE, SyncRemoteClient, read_hub
from memhub.scope import Scope
from memhub.store._lock import DirLock
from memhub.testing import HashEmbedder

pytestmark = [pytest.mark.enable_socket, pytest.mark.network]


def make_checkout(root, origin: str, branch: str):
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text(f"ref: refs/heads/{branch}\n")
    (root / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {origin}\n')
    return root


def test_hub_announces_itself_privately_and_serves_its_token_only(hub, fresh_store):
    path = fresh_store / HUB_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    info = json.loads(path.read_text())
    assert set(info) == {"url", "token", "pid"} and info["pid"] == os.getpid()
    assert info["url"].startswith("http://127.0.0.1:") and read_hub(fresh_store).url == info["url"]

    with SyncRemoteClient(info["url"], info["token"], scope=Scope()) as client:
        atom = client.memorize("项目用 PostgreSQL 16 做主数据库")
        assert client.recall("PostgreSQL").atoms[0].atom_id == atom.atom_id
    with pytest.raises(MemHubError) as caught:  # opening checks the token
        SyncRemoteClient(info["url"], "wrong-token", scope=Scope()).open()
    assert caught.value.code == "unauthorized"


def test_hub_json_is_removed_when_the_hub_stops_and_the_store_opens_locally(
    fresh_store, hub_thread
):
    with hub_thread(fresh_store):
        assert (fresh_store / HUB_FILE).exists()
    assert not (fresh_store / HUB_FILE).exists()
    with SyncMemoryClient(
        storage_dir=fresh_store, embed=HashEmbedder(), cwd=fresh_store.parent
    ) as local:
        assert local.stats().atoms == 0


async def test_memory_client_on_a_store_held_by_the_hub_works_through_it(
    hub, fresh_store, tmp_path
):
    checkout = make_checkout(tmp_path / "web", "git@github.com:acme/web.git", "main")
    async with MemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=checkout) as client:
        atom = await client.memorize("部署前先跑 make check")
        written = await client.add(content="我最爱的编程语言是 Java", user_id="alice")
        assert (await client.recall("部署")).atoms[0].atom_id == atom.atom_id
        assert [
            m.id for m in (await client.search("编程语言", user_id="alice")).memories.all()
        ] == [written.decisions[0].memory_id]
        # The checkout's scope travelled with the calls, as it does locally.
        assert (await client.history(atom.atom_id)).current.scope["repository"] == "acme/web"
        assert (await client.history(atom.atom_id)).current.scope["branch"] == "main"

    # Seen from another checkout through the hub: bound memories stay in their repository.
    elsewhere = make_checkout(tmp_path / "api", "git@github.com:acme/api.git", "main")
    async with MemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=elsewhere) as client:
        assert (await client.recall("部署")).atoms == []
        assert (await client.recall("部署", repository="*")).atoms[0].atom_id == atom.atom_id
    # ...and from a checkout on another branch, "*" (or the repository's name) is any branch
    feature = make_checkout(tmp_path / "api2", "git@github.com:acme/api.git", "feature/x")
    async with MemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=feature) as client:
        assert (await client.recall("部署", repository="*")).atoms[0].atom_id == atom.atom_id
        assert (await client.recall("部署", repository="acme/web")).atoms[0].atom_id == atom.atom_id
        assert (await client.recall("部署", repository="*", branch="feature/x")).atoms == []


def test_sync_client_on_a_store_held_by_the_hub_works_through_it(hub, fresh_store):
    with SyncMemoryClient(
        storage_dir=fresh_store, embed=HashEmbedder(), cwd=fresh_store.parent
    ) as client:
        written = client.add(content="我住在上海", user_id="bob")
        fact = written.decisions[0].memory_id
        assert client.get(fact, user_id="bob").content.startswith("我住在上海")
        assert client.update(fact, "我住在北京", user_id="bob") != fact


async def test_a_stale_hub_json_does_not_hide_who_holds_the_store(fresh_store, tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (fresh_store / HUB_FILE).write_text(
        json.dumps({"url": "http://127.0.0.1:9", "token": "t", "pid": int(dead.stdout)})
    )
    lock = DirLock(fresh_store)  # held by "another process": a plain lock, no hub behind it
    lock.acquire()
    try:
        second = MemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=tmp_path)
        with pytest.raises(StoreLockedError, match="memhub serve"):
            await second.open()
    finally:
        lock.release()


def test_a_second_hub_on_the_same_store_says_where_the_first_is(hub, fresh_store, hub_thread):
    with (
        pytest.raises(StoreLockedError, match=f"already running for this store at {hub.url}"),
        hub_thread(fresh_store),
    ):
        pass


def test_a_proxy_in_the_environment_never_sees_hub_traffic(hub, fresh_store, monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with SyncMemoryClient(
        storage_dir=fresh_store, embed=HashEmbedder(), cwd=fresh_store.parent
    ) as client:
        assert client.stats().atoms == 0
