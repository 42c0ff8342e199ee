"""``forget_user`` over REST erases the user's LangGraph threads: the server knows the
checkpointer's collections from the adapter it has installed."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import httpx
from langgraph.graph import END, START, StateGraph

from memhub.remote import RemoteClient
from memhub.scope import Scope
from memhub_langgraph import MemHubCheckpointer
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


def test_a_users_threads_are_erased_through_the_rest_service(fresh_store, make_service):
    keys = KeyStore(fresh_store / KEYS_FILE)
    transport = httpx.ASGITransport(app=create_app(service=make_service(fresh_store), auth=keys))
    key = keys.create("tenant-a")[0]

    def remote() -> RemoteClient:
        return RemoteClient("http://memhub.test", key, scope=Scope(), transport=transport)

    saver = MemHubCheckpointer(remote())
    alice = {"configurable": {"thread_id": "t-alice", "user_id": "alice"}}
    bob = {"configurable": {"thread_id": "t-bob", "user_id": "bob"}}
    try:
        _graph(saver).invoke({"turns": ["I am alice"]}, alice)
        _graph(saver).invoke({"turns": ["I am bob"]}, bob)

        async def forget() -> int:
            async with remote() as client:
                return (await client.forget_user("alice")).threads

        assert asyncio.run(forget()) == 1
        assert saver.get_tuple(alice) is None
        assert list(saver.list(alice)) == []
        assert _graph(saver).get_state(bob).values["turns"] == ["I am bob", "reply 1"]
    finally:
        saver.close()
