"""``RemoteClient``: the SDK's API over the REST API, with the SDK's errors (in-process ASGI)."""

from __future__ import annotations

import inspect

import httpx
import pytest

from memhub import (
    InvalidInputError,
    InvalidTransitionError,
    MemHubError,
    MemoryClient,
    NotFoundError,
    SyncMemoryClient,
)
from memhub.remote import RemoteClient, SyncRemoteClient
from memhub.scope import Scope
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore

MISSING = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
LIFECYCLE = {"open", "aclose", "close"}


def _public(cls) -> dict[str, inspect.Signature]:
    return {
        n: inspect.signature(m)
        for n, m in inspect.getmembers(cls, inspect.isfunction)
        if not n.startswith("_")
    }


@pytest.mark.parametrize(
    ("local", "remote"), [(MemoryClient, RemoteClient), (SyncMemoryClient, SyncRemoteClient)]
)
def test_remote_clients_have_the_local_clients_methods_and_signatures(local, remote):
    local_api, remote_api = _public(local), _public(remote)
    assert set(local_api) - LIFECYCLE == set(remote_api) - LIFECYCLE
    for name in set(local_api) - LIFECYCLE:
        assert str(remote_api[name]) == str(local_api[name]), name
        assert getattr(remote, name).__doc__ == getattr(local, name).__doc__, name


def test_the_sync_faces_take_their_async_clients_constructors():
    assert str(inspect.signature(SyncRemoteClient)) == str(inspect.signature(RemoteClient))
    assert str(inspect.signature(SyncMemoryClient)) == str(inspect.signature(MemoryClient))


@pytest.fixture
async def remote(fresh_store, make_service):
    """A RemoteClient on tenant A of an app over a fresh store, in process (no sockets)."""
    keys = KeyStore(fresh_store / KEYS_FILE)
    key_a, _ = keys.create("tenant-a")
    key_b, _ = keys.create("tenant-b")
    service = make_service(fresh_store)
    transport = httpx.ASGITransport(app=create_app(service=service, auth=keys))
    clients = [
        RemoteClient("http://memhub.test", key, scope=Scope(), transport=transport)
        for key in (key_a, key_b)
    ]
    yield clients
    for client in clients:
        await client.aclose()
    await service.close()


async def test_remote_round_trip_matches_the_sdk(remote):
    client, _ = remote
    written = await client.add(
        content="我最爱的编程语言是 Java", user_id="alice", metadata={"k": "v"}
    )
    fact = written.decisions[0].memory_id
    assert written.memory_ids == [fact] != [written.memory_id]  # the fact, not the raw turn
    found = await client.search("编程语言", user_id="alice")
    assert [m.id for m in found.memories.all()] == [fact]
    assert (await client.get(fact, user_id="alice")).metadata == {"k": "v"}
    new_id = await client.update(fact, "我最爱的编程语言是 Rust", user_id="alice")
    assert (await client.get(new_id)).evolution_chain == [fact]
    await client.delete(new_id)
    assert await client.list(user_id="alice") == []
    assert {m.status for m in await client.list(user_id="alice", include_history=True)} == {
        "superseded",
        "archived",
    }

    turns = await client.search_conversation("编程语言", user_id="alice")
    assert turns.turns and turns.turns[0].role == "user"
    said = [{"role": "user", "content": "你好"}, {"role": "assistant", "content": "你好！"}]
    await client.add(messages=said, user_id="alice", session_id="chat-1")
    session = await client.conversation(user_id="alice", session_id="chat-1")
    assert [(t.role, t.content) for t in session.turns] == [(m["role"], m["content"]) for m in said]

    atom = await client.memorize("项目用 PostgreSQL 16 做主数据库", repository="acme/db")
    assert (await client.recall("PostgreSQL", repository="acme/db")).atoms[
        0
    ].atom_id == atom.atom_id
    assert (await client.recall("PostgreSQL", repository="other/repo")).atoms == []
    replaced = await client.correct(
        atom.atom_id, "replace", "升级", "项目用 PostgreSQL 17 做主数据库", repository="acme/db"
    )
    await client.govern(replaced.new_atom_id, "quarantine", "待核实", repository="acme/db")
    await client.handoff("升级做了一半", repository="acme/db")
    assert (await client.session_context(repository="acme/db")).handoff.content == "升级做了一半"
    trail = await client.history(replaced.new_atom_id, repository="*")
    assert trail.exposure_history[-1].to == "quarantined" and trail.relations.supersedes == [
        atom.atom_id
    ]
    assert (await client.stats()).atoms >= 4


async def test_remote_govern_lists_what_was_sealed_with_the_target(remote):
    client, other_tenant = remote
    turn = "保险柜暗号是 kiwi-7741。我把 kiwi-7741 写在了书房的便签上。"
    written = await client.add(content=turn, user_id="alice")
    extracted = [d.memory_id for d in written.decisions]
    sealed = await client.govern(written.memory_id, "seal", "含保险柜暗号", user_id="alice")
    assert sealed.cascaded == extracted and len(extracted) == 2
    assert await client.list(user_id="alice") == []


async def test_remote_errors_are_the_sdk_errors(remote):
    client, other_tenant = remote
    with pytest.raises(NotFoundError):
        await client.get(MISSING)
    with pytest.raises(InvalidInputError, match="not a memory id"):
        await client.get("not-an-id")
    with pytest.raises(InvalidInputError):  # a schema violation (422) is invalid input too
        await client.recall("x", limit=0)
    atom = await client.memorize("周会改到周三")
    await client.correct(atom.atom_id, "negate", "取消了")
    with pytest.raises(InvalidTransitionError, match="replace"):
        await client.correct(atom.atom_id, "confirm_actual", "r")
    with pytest.raises(NotFoundError):  # another tenant's id
        await other_tenant.history(atom.atom_id)
    with pytest.raises(InvalidInputError, match="tenant"):
        await client.recall("x", tenant="tenant-b")
    with pytest.raises(TypeError, match="unknown scope keys"):  # as MemoryClient
        await client.recall("x", colour="blue")


async def test_digest_over_http(remote):
    client, _ = remote
    for text in ["我每天早上喝咖啡", "下午也会喝一杯咖啡提神", "周末去咖啡馆写代码"]:
        await client.add(content=text, user_id="digest-user")
    # the service runs in system1: nothing was marked pending, whatever the mode asked for
    assert (await client.digest()).processed == 0
    assert (await client.digest(mode="dual")).processed == 0


async def test_forget_user_over_http(remote):
    client, other_tenant = remote
    written = await client.add(content="我住在上海", user_id="alice")
    await other_tenant.add(content="我住在广州", user_id="alice")
    forgotten = await client.forget_user("alice")
    assert (forgotten.user_id, forgotten.tombstoned) == ("alice", 2)
    assert await client.list(user_id="alice", include_history=True) == []
    assert (await client.get(written.memory_id)).content == "[governed payload hidden: tombstoned]"
    assert [m.content for m in await other_tenant.list(user_id="alice")] == ["我住在广州"]
    assert (await client.forget_user("alice", app_id="default")).tombstoned == 0
    with pytest.raises(InvalidInputError, match="user_id"):
        await client.forget_user("")


async def test_remote_search_and_list_narrow_to_a_session_only_when_asked(remote):
    client, _ = remote
    await client.add(content="我养了一只橘猫", user_id="alice", session_id="a")
    await client.add(content="我的猫叫团子", user_id="alice", session_id="b")
    everywhere = (await client.search("猫", user_id="alice")).memories.all()
    only_b = (await client.search("猫", user_id="alice", session_id="b")).memories.all()
    assert sorted(m.session_id for m in everywhere) == ["a", "b"]
    assert [m.session_id for m in only_b] == ["b"]
    assert [m.session_id for m in await client.list(user_id="alice", session_id="a")] == ["a"]


async def test_a_wrong_key_is_an_unauthorized_memhub_error(fresh_store, make_service):
    keys = KeyStore(fresh_store / KEYS_FILE)
    keys.create("tenant-a")
    service = make_service(fresh_store)
    transport = httpx.ASGITransport(app=create_app(service=service, auth=keys))
    client = RemoteClient("http://memhub.test", "mh_wrong", transport=transport)
    with pytest.raises(MemHubError) as caught:
        await client.stats()
    assert caught.value.code == "unauthorized" and caught.value.status_code == 401
    with pytest.raises(MemHubError) as caught:  # opening checks the key too
        await client.open()
    assert caught.value.code == "unauthorized"
    await client.aclose()
    await service.close()


async def test_an_unreachable_server_is_a_clear_error():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = RemoteClient("http://127.0.0.1:9", transport=httpx.MockTransport(refuse))
    with pytest.raises(MemHubError, match="did not answer") as caught:
        await client.open()
    assert caught.value.code == "unavailable"


def test_public_surface_is_pinned():
    import memhub_server

    assert sorted(memhub_server.__all__) == [
        "KeyStore",
        "LocalHub",
        "MemoryService",
        "SingleToken",
        "create_app",
    ]
    assert all(getattr(memhub_server, name) for name in memhub_server.__all__)


async def test_remote_reads_as_of_a_date(remote):
    remote, _ = remote
    await remote.add(content="I live in Toronto", user_id="t", occurred_at="2026-01-10")
    moved = await remote.add(
        content="I moved to Montreal last month", user_id="t", occurred_at="2026-09-15"
    )
    montreal = moved.decisions[0].memory_id
    july = await remote.search("where do I live", user_id="t", as_of="2026-07-15")
    assert [m.content for m in july.memories.all()] == ["I live in Toronto"]
    assert (await remote.get(montreal, as_of="2026-07-15")).content == "I live in Toronto"
    listed = await remote.list(user_id="t", as_of="2026-07-15")
    assert [m.content for m in listed] == ["I live in Toronto"]
    now = await remote.get(montreal)
    assert (now.valid_from[:10], now.valid_precision) == ("2026-08-01", "month")
