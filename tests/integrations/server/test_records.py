"""``client.records`` through the hub and the REST service: LangGraph's store and checkpointer
on a store held by a running hub, and records that never cross tenants: two tenants of one
server use the same thread ids and store keys side by side."""

from __future__ import annotations

import operator
import uuid
from typing import Annotated, TypedDict

import httpx
import pytest
from langgraph.graph import END, START, StateGraph

from memhub import MemoryClient, SyncMemoryClient
from memhub.ids import to_point_id
from memhub.remote import RemoteClient
from memhub.scope import Scope
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubCheckpointer, MemHubStore
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore


class _State(TypedDict):
    turns: Annotated[list[str], operator.add]


def _graph(checkpointer):
    builder = StateGraph(_State)
    builder.add_node("respond", lambda state: {"turns": [f"reply {len(state['turns'])}"]})
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(checkpointer=checkpointer)


@pytest.mark.enable_socket
@pytest.mark.network
def test_the_langgraph_store_and_checkpointer_work_through_the_hub(hub, fresh_store, tmp_path):
    with SyncMemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=tmp_path) as client:
        assert client.async_client.remote is not None  # the hub holds the store
        store = MemHubStore(client)
        store.put(("notes", "alice"), "diet", {"text": "Alice is vegetarian"})
        store.put(("notes", "alice"), "pet", {"text": "Alice has a cat named Tom"})
        assert store.get(("notes", "alice"), "diet").value == {"text": "Alice is vegetarian"}
        found = store.search(("notes",), query="Alice is vegetarian")
        assert found[0].key == "diet" and 0 < found[0].score <= 1
        assert store.list_namespaces() == [("notes", "alice")]
        store.put(("notes", "alice"), "pet", None)
        assert store.get(("notes", "alice"), "pet") is None
        # the memory namespace is the user's memhub memory, through the hub as well
        memories = ("memories", "alice")
        store.put(memories, "m", {"content": "I live in Lyon"})
        store.put(memories, "q", {"content": "Where is a good bakery?"})  # a question: not kept
        (memory,) = store.search(memories, query="Where do I live?")
        assert memory.value["content"] == "I live in Lyon"
        assert store.get(memories, memory.key).value["memory_id"] == memory.value["memory_id"]

        saver = MemHubCheckpointer(client)
        assert client.async_client.records.writes("checkpoints") is None  # nothing kept in memory
        config = {"configurable": {"thread_id": "t1"}}
        assert _graph(saver).invoke({"turns": ["hi"]}, config)["turns"] == ["hi", "reply 1"]
        assert _graph(saver).get_state(config).values["turns"] == ["hi", "reply 1"]
        saver.delete_thread("t1")
        assert saver.get_tuple(config) is None
        saver.close()
        store.close()


@pytest.mark.enable_socket
@pytest.mark.network
async def test_an_async_client_on_a_hub_held_store_serves_the_adapters(hub, fresh_store, tmp_path):
    client = MemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=tmp_path)
    async with client, MemHubStore(client) as store:
        await store.aput(("n",), "k", {"text": "through the hub"})
        assert (await store.aget(("n",), "k")).value == {"text": "through the hub"}


def _point(thread: str) -> dict:
    return {"id": str(uuid.uuid4()), "payload": {"kind": "blob", "thread_id": thread}}


def test_records_stay_inside_their_tenant(api, api_b):
    mine = _point("shared-thread-name")
    assert (
        api.post(
            "/v1/records/put", json={"collection": "checkpoints", "points": [mine]}
        ).status_code
        == 200
    )
    where = {
        "kind": "where",
        "must": [{"kind": "match", "key": "thread_id", "value": "shared-thread-name"}],
    }
    seen_by_b = api_b.post(
        "/v1/records/scroll", json={"collection": "checkpoints", "where": where}
    ).json()
    assert seen_by_b["points"] == []
    got = api_b.post(
        "/v1/records/get", json={"collection": "checkpoints", "ids": [mine["id"]]}
    ).json()
    assert got == []
    overwrite = api_b.post("/v1/records/put", json={"collection": "checkpoints", "points": [mine]})
    assert overwrite.status_code == 400
    api_b.post("/v1/records/delete", json={"collection": "checkpoints", "ids": [mine["id"]]})
    page = api.post("/v1/records/scroll", json={"collection": "checkpoints", "where": where}).json()
    assert [p["payload"]["tenant"] for p in page["points"]] == ["tenant-a"]


def test_records_never_reach_memories(api, uid):
    written = api.post("/v1/memories/", json={"content": "I live in Lyon", "user_id": uid}).json()
    point = to_point_id(written["memory_id"])
    got = api.post("/v1/records/get", json={"collection": "memories", "ids": [point]})
    assert got.json() == []
    assert (
        api.post("/v1/records/get", json={"collection": "memories", "ids": ["x"]}).status_code
        == 400
    )
    forged = {"id": str(uuid.uuid4()), "payload": {"layer": "fact", "content": "forged"}}
    assert (
        api.post("/v1/records/put", json={"collection": "memories", "points": [forged]}).status_code
        == 400
    )
    assert api.post("/v1/records/count", json={"collection": "events"}).status_code == 400


def test_records_are_written_only_where_records_live(api):
    # an empty write too: it used to pass unchecked, answering 200 for any collection
    for name in ("events", "meta", "nowhere"):
        for points in ([], [{"id": str(uuid.uuid4()), "payload": {"thread_id": "t"}}]):
            refused = api.post("/v1/records/put", json={"collection": name, "points": points})
            assert refused.status_code == 400
            assert "records live in memories, checkpoints, checkpoint_writes" in refused.text
    assert api.post("/v1/records/put", json={"collection": "checkpoints", "points": []}).is_success


async def test_local_records_are_written_only_where_records_live(tmp_path):
    from memhub import InvalidInputError

    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as local:
        for name in ("events", "meta", "nowhere"):
            with pytest.raises(InvalidInputError, match="records live in"):
                await local.records.put(name, [])
            with pytest.raises(InvalidInputError, match="records live in"):
                local.records.put_now(name, [])  # used to answer True: "written"
        assert local.records.put_now("checkpoints", []) is True


def test_a_bad_filter_is_refused(api):
    bad = api.post(
        "/v1/records/scroll", json={"collection": "checkpoints", "where": {"kind": "nope"}}
    )
    assert bad.status_code == 400


async def test_local_records_are_narrowed_to_the_tenant(tmp_path):
    from memhub import Settings
    from memhub.scope import Scope
    from memhub.store.base import StoredPoint

    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
    ) as local:
        acme = MemoryClient(
            settings=Settings(tenant="acme"), engine=local.engine, scope=Scope(tenant="acme")
        )
        await local.records.put("checkpoints", [StoredPoint(str(uuid.uuid4()), {"thread_id": "t"})])
        assert await local.records.count("checkpoints") == 1
        assert await acme.records.count("checkpoints") == 0


@pytest.fixture
def tenants(fresh_store, make_service):
    """Remote clients of tenants A and B on one server, in process (no sockets)."""
    keys = KeyStore(fresh_store / KEYS_FILE)
    service = make_service(fresh_store)
    transport = httpx.ASGITransport(app=create_app(service=service, auth=keys))
    clients = [
        RemoteClient("http://memhub.test", keys.create(name)[0], scope=Scope(), transport=transport)
        for name in ("tenant-a", "tenant-b")
    ]
    yield clients
    # each adapter closes what it opened on its own loop; the service goes with the test's


def test_two_tenants_run_the_same_thread_id_side_by_side(tenants):
    a, b = (MemHubCheckpointer(c) for c in tenants)
    config = {"configurable": {"thread_id": "1"}}  # the id every tutorial uses
    try:
        assert _graph(a).invoke({"turns": ["from a"]}, config)["turns"] == ["from a", "reply 1"]
        assert _graph(b).invoke({"turns": ["from b"]}, config)["turns"] == ["from b", "reply 1"]
        assert _graph(a).invoke({"turns": ["a again"]}, config)["turns"][-2:] == [
            "a again",
            "reply 3",
        ]
        assert _graph(b).get_state(config).values["turns"] == ["from b", "reply 1"]
        assert len(list(a.list(config))) == 6 and len(list(b.list(config))) == 3
        b.delete_thread("1")
        assert b.get_tuple(config) is None
        assert _graph(a).get_state(config).values["turns"][0] == "from a"
    finally:
        a.close()
        b.close()


def test_two_tenants_keep_items_under_the_same_namespace_and_key(tenants):
    a, b = (MemHubStore(c) for c in tenants)
    try:
        a.put(("prefs", "user-1"), "diet", {"text": "vegetarian"})
        b.put(("prefs", "user-1"), "diet", {"text": "eats everything"})
        assert a.get(("prefs", "user-1"), "diet").value == {"text": "vegetarian"}
        assert b.get(("prefs", "user-1"), "diet").value == {"text": "eats everything"}
        b.delete(("prefs", "user-1"), "diet")
        assert a.get(("prefs", "user-1"), "diet").value == {"text": "vegetarian"}
    finally:
        a.close()
        b.close()
