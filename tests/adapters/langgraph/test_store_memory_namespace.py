"""The memory namespace of ``MemHubStore``: a node that reads and writes
``runtime.store`` at ``("memories", user_id)``, the way LangGraph's docs and LangMem do, gets
memhub's reconciled memory; every other namespace stays plain items."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import pytest
from langchain_core.messages import SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import PutOp
from lg_fakes import scripted
from multi_session import STORIES, Story, assert_current, memory_lines

from memhub.ids import to_point_id
from memhub_langgraph import MemHubStore


@dataclass
class Ctx:
    user_id: str


@pytest.mark.parametrize("story", STORIES)
def test_a_docs_style_node_is_shown_the_current_memory(story: Story, make_client, e5):
    client = make_client(embed=e5)
    store = MemHubStore(client)
    model = scripted(*["Got it."] * story.turns)

    def call_model(state: MessagesState, runtime: Runtime[Ctx]) -> dict:
        # As in LangGraph's "add long-term memory" guide, word for word but the prompt.
        namespace = ("memories", runtime.context.user_id)
        said = state["messages"][-1].text
        memories = runtime.store.search(namespace, query=said)
        info = "\n".join(f"- {m.value['data']}" for m in memories)
        system = SystemMessage(f"You are a helpful assistant.\nUser memories:\n{info}")
        reply = model.invoke([system, *state["messages"]])
        runtime.store.put(namespace, str(uuid.uuid4()), {"data": said})
        return {"messages": [reply]}

    builder = StateGraph(MessagesState, context_schema=Ctx)
    builder.add_node("model", call_model)
    builder.add_edge(START, "model")
    builder.add_edge("model", END)
    graph = builder.compile(checkpointer=InMemorySaver(), store=store)

    for i, turns in enumerate(story.sessions, 1):
        for text in turns:
            graph.invoke(
                {"messages": [("user", text)]},
                {"configurable": {"thread_id": f"t{i}"}},
                context=Ctx(user_id="alice"),
            )

    shown = model.prompts[-1][0].text  # the third session's question
    assert_current(shown, story)
    assert memory_lines(shown), f"no memory shown:\n{shown}"
    # Nobody else's namespace holds alice's memory.
    assert store.search(("memories", "bob"), query=story.asked) == []
    store.close()


def test_put_get_delete_by_the_memory_id(make_client):
    client = make_client()
    with MemHubStore(client) as store:
        alice = ("memories", "alice")
        store.put(alice, "k1", {"content": "I live in Berlin."})
        store.put(alice, "k2", {"messages": [{"role": "user", "content": "I moved to Munich."}]})
        (found,) = store.search(alice, query="Where do I live?")
        assert "Munich" in found.value["content"]
        assert found.key == to_point_id(found.value["memory_id"])  # LangMem's tools need UUIDs
        assert store.get(alice, "k1") is None  # the caller's key is not kept: memhub's id is
        for key in (found.key, found.value["memory_id"]):
            assert store.get(alice, key).value["content"] == found.value["content"]
        assert store.get(("memories", "bob"), found.key) is None  # not bob's

        store.put(alice, found.key, {"content": "I moved to Hamburg."})  # replaces that memory
        (now,) = store.search(alice)
        assert now.value["content"] == "I moved to Hamburg."
        assert found.value["memory_id"] in client_history(client, now.value["memory_id"])

        store.delete(alice, now.key)
        assert store.search(alice) == []
        store.delete(alice, now.key)  # gone already: nothing happens, as for an item


def client_history(client, memory_id: str) -> list[str]:
    async def chain() -> list[str]:
        return (await client.get(memory_id, user_id="alice")).evolution_chain

    return asyncio.run(chain())


def test_chatter_put_there_is_not_shown(make_client):
    with MemHubStore(make_client()) as store:
        alice = ("memories", "alice")
        for said in ("Can you recommend a podcast?", "谢谢！", "I'm vegetarian.", "我住在上海"):
            store.put(alice, str(uuid.uuid4()), {"data": said})
        shown = sorted(i.value["content"] for i in store.search(alice))
        assert shown == ["I'm vegetarian", "我住在上海"]


def test_bad_input_fails_the_whole_batch_and_writes_nothing(make_client):
    with MemHubStore(make_client()) as store:
        with pytest.raises(ValueError, match="memory namespace takes text"):
            store.batch(
                [
                    PutOp(("prefs", "alice"), "diet", {"text": "vegetarian"}),
                    PutOp(("memories", "alice"), "k", {"tags": ["vegetarian"]}),
                ]
            )
        assert store.get(("prefs", "alice"), "diet") is None
        assert store.search(("memories", "alice")) == []
        with pytest.raises(ValueError, match="non-empty list"):
            store.put(("memories", "alice"), "k", {"messages": "I'm vegetarian"})
        with pytest.raises(ValueError, match="tuple of non-empty strings"):
            MemHubStore(store.client, memory_namespace="memories")  # type: ignore[arg-type]


def test_other_namespaces_and_a_custom_prefix_stay_items(make_client):
    client = make_client()
    with MemHubStore(client, memory_namespace=("app", "memories")) as store:
        # ("memories", user) is a plain item now; ("app", "memories", user) is the memory.
        store.put(("memories", "alice"), "diet", {"text": "vegetarian"})
        assert store.get(("memories", "alice"), "diet").value == {"text": "vegetarian"}
        store.put(("app", "memories", "alice"), "k", {"text": "I'm vegetarian."})
        (memory,) = store.search(("app", "memories", "alice"), query="diet")
        assert memory.value["layer"] in ("fact", "profile")
        assert memory.namespace == ("app", "memories", "alice")
        # Deeper or shallower namespaces under the prefix are items too.
        store.put(("app", "memories", "alice", "notes"), "n", {"text": "todo"})
        assert store.get(("app", "memories", "alice", "notes"), "n").value == {"text": "todo"}
    with MemHubStore(client, memory_namespace=None) as plain:
        # memories are not items: only the notes item is under that prefix
        found = plain.search(("app", "memories", "alice"))
        assert [i.namespace for i in found] == [("app", "memories", "alice", "notes")]
        assert plain.get(("memories", "alice"), "diet").value == {"text": "vegetarian"}


async def test_async_search_and_put(make_client):
    store = MemHubStore(make_client())
    alice = ("memories", "alice")
    await store.aput(alice, "k", {"content": "我在阿里巴巴工作"})
    await store.aput(alice, "k", {"content": "我已经从阿里离职，加入了字节跳动"})
    shown = [i.value["content"] for i in await store.asearch(alice, query="我在哪里工作？")]
    assert any("字节跳动" in line for line in shown), shown
    assert not any("阿里巴巴" in line and "字节" not in line for line in shown), shown
    await store.aclose()


def test_limit_offset_and_filter_apply_to_the_memories(make_client):
    with MemHubStore(make_client()) as store:
        alice = ("memories", "alice")
        for said in ("I live in Berlin.", "I have a daughter named Mia.", "I drive a Tesla."):
            store.put(alice, str(uuid.uuid4()), {"data": said})
        everything = store.search(alice, query="me", limit=10)
        assert len(everything) == 3
        assert [i.score for i in everything] == sorted((i.score for i in everything), reverse=True)
        assert store.search(alice, query="me", limit=1, offset=1) == everything[1:2]
        layer = everything[0].value["layer"]
        assert {i.key for i in store.search(alice, query="me", filter={"layer": layer})} == {
            i.key for i in everything if i.value["layer"] == layer
        }
        assert store.search(alice, query="me", filter={"layer": "nope"}) == []
        # a search above the memory namespace lists plain items only
        assert store.search(("memories",), query="Berlin") == []
