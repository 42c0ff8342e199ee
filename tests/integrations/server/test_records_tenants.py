"""Two tenants of one memhub server use the same LangGraph thread ids and store keys: each
sees only its own, and neither is refused because the other got there first."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import httpx
import pytest
from langgraph.graph import END, START, StateGraph

from memhub.remote import RemoteClient
from memhub.scope import Scope
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
