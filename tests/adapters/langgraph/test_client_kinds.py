"""The store and the checkpointer take any memhub client, and share one store folder
in a process.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph

from memhub import MemoryClient, SyncMemoryClient
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubCheckpointer, MemHubStore


class _State(TypedDict):
    turns: Annotated[list[str], operator.add]


def _graph(checkpointer, store=None):
    def respond(state: _State) -> dict:
        return {"turns": [f"reply {len(state['turns'])}"]}

    builder = StateGraph(_State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(checkpointer=checkpointer, store=store)


def test_a_sync_client_serves_the_store_and_the_checkpointer(tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path) as client:
        store = MemHubStore(client)
        saver = MemHubCheckpointer(client)
        store.put(("notes", "alice"), "diet", {"text": "Alice is vegetarian"})
        assert store.get(("notes", "alice"), "diet").value == {"text": "Alice is vegetarian"}
        assert store.search(("notes",), query="what does alice eat")[0].key == "diet"
        config = {"configurable": {"thread_id": "t1"}}
        assert _graph(saver, store).invoke({"turns": ["hi"]}, config)["turns"] == ["hi", "reply 1"]
        assert saver.get_tuple(config) is not None
        saver.close()
        store.close()
        client.memorize("the client still works after its adapters closed")  # not closed by them


def test_a_store_and_a_checkpointer_on_one_storage_dir_share_it(tmp_path):
    """The common setup (store + checkpointer + a client, each from storage_dir) in one process."""
    folder = tmp_path / "s"
    store = MemHubStore(storage_dir=folder, embed=HashEmbedder())
    saver = MemHubCheckpointer(storage_dir=folder, embed=HashEmbedder())
    with SyncMemoryClient(storage_dir=folder, embed=HashEmbedder(), cwd=tmp_path) as client:
        config = {"configurable": {"thread_id": "t1"}}
        _graph(saver, store).invoke({"turns": ["hi"]}, config)
        store.put(("notes",), "k", {"text": "kept"})
        client.add("I live in Lyon", user_id="alice")
        assert [m.content for m in client.list(user_id="alice")] == ["I live in Lyon"]
    saver.close()
    assert store.get(("notes",), "k").value == {"text": "kept"}  # still open: one user left
    store.close()
    with MemHubCheckpointer(storage_dir=folder, embed=HashEmbedder()) as again:
        state = _graph(again).get_state({"configurable": {"thread_id": "t1"}})
        assert state.values["turns"] == ["hi", "reply 1"]


async def test_an_async_client_and_the_adapters_from_storage_dir_share_one_engine(tmp_path):
    folder = tmp_path / "s"
    async with MemoryClient(storage_dir=folder, embed=HashEmbedder(), cwd=tmp_path) as client:
        async with MemHubStore(storage_dir=folder) as store:
            assert store.client.engine is client.engine
            await store.aput(("n",), "k", {"text": "v"})
            assert (await store.aget(("n",), "k")).value == {"text": "v"}
        await client.memorize("still open after the store closed")
