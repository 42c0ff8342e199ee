"""End to end with the real LangGraph classes and a scripted model: what a user says in
one session reaches the model's prompt in the next, and never another user's."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from langchain_core.messages import SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from lg_fakes import RecordingChatModel, scripted

from memhub import SyncMemoryClient
from memhub.bridge import MemHub
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubCheckpointer, MemHubStore, memory_add_node, memory_search_node


class State(MessagesState):
    memories: str


def build_graph(client, model: RecordingChatModel, checkpointer=None, store=None, window="turn"):
    def call_model(state: State) -> dict:
        system = SystemMessage(
            "You are a helpful cooking assistant.\n\n" + state.get("memories", "")
        )
        return {"messages": [model.invoke([system, *state["messages"]])]}

    builder = StateGraph(State)
    builder.add_node("recall", memory_search_node(client))
    builder.add_node("model", call_model)
    builder.add_node("remember", memory_add_node(client, window=window))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", "remember")
    builder.add_edge("remember", END)
    return builder.compile(checkpointer=checkpointer, store=store)


def _config(user: str, thread: str) -> dict:
    return {"configurable": {"user_id": user, "thread_id": thread}}


def test_memory_crosses_sessions_not_users(make_client):
    client = make_client()
    checkpointer = MemHubCheckpointer(client)  # opens the client; all three share one store
    store = MemHubStore(client)
    model = scripted(
        "Noted: vegetarian, no peanuts.",
        "Noted: you love steak.",
        "Try a chickpea curry.",
        "How about a ribeye?",
    )
    graph = build_graph(client, model, checkpointer, store)

    graph.invoke(
        {"messages": [("user", "I'm vegetarian and I'm allergic to peanuts.")]},
        _config("alice", "alice-1"),
    )
    graph.invoke(
        {"messages": [("user", "I love steak and I grill every weekend.")]}, _config("bob", "bob-1")
    )
    assert model.prompt_text(0).count("vegetarian") == 1  # first session: nothing recalled yet

    out = graph.invoke(
        {"messages": [("user", "What should I cook tonight?")]}, _config("alice", "alice-2")
    )
    alice_prompt = model.prompt_text(2)
    assert "I'm vegetarian" in alice_prompt and "allergic to peanuts" in alice_prompt
    assert "steak" not in alice_prompt
    assert out["messages"][-1].text == "Try a chickpea curry."
    assert "I'm vegetarian" in out["memories"]

    graph.invoke({"messages": [("user", "What should I cook tonight?")]}, _config("bob", "bob-2"))
    bob_prompt = model.prompt_text(3)
    assert "steak" in bob_prompt
    assert "vegetarian" not in bob_prompt and "peanuts" not in bob_prompt

    # Session 1 was added: the raw turns are searchable, by session, and tool/system text is not.
    async def turns(query: str, user: str, session: str | None = None):
        return (await client.search_conversation(query, user_id=user, session_id=session)).turns

    raw = checkpointer._runner.run(turns("vegetarian peanuts", "alice", "alice-1"))
    assert ("user", "I'm vegetarian and I'm allergic to peanuts.") in [
        (t.role, t.content) for t in raw
    ]
    assert {t.session_id for t in raw} == {"alice-1"}
    assert all("cooking assistant" not in t.content for t in raw)
    assert not any(
        "vegetarian" in t.content for t in checkpointer._runner.run(turns("vegetarian", "bob"))
    )
    # the thread itself was checkpointed: the second session's state is there
    assert (
        graph.get_state(_config("alice", "alice-2")).values["messages"][-1].text
        == "Try a chickpea curry."
    )
    store.close()
    checkpointer.close()


def test_memory_crosses_sessions_under_ainvoke_with_a_sync_client(tmp_path):
    with SyncMemoryClient(
        storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        model = scripted("Noted.", "Since you're vegan: lentil soup.")
        graph = build_graph(client, model)

        async def two_sessions() -> None:
            await graph.ainvoke(
                {"messages": [("user", "I am vegan and I live in Lisbon.")]}, _config("eve", "e-1")
            )
            await graph.ainvoke(
                {"messages": [("user", "Any dinner idea for me?")]}, _config("eve", "e-2")
            )

        asyncio.run(two_sessions())
        assert "I am vegan" in model.prompt_text(1)
        assert client.search_conversation("vegan Lisbon", user_id="eve", session_id="e-1").turns


@pytest.mark.parametrize("window", ["turn", "all"])
def test_add_node_adds_each_turn_once(make_client, window):
    """``window="all"`` re-sends the whole thread after every turn: what is stored is skipped."""
    client = make_client()
    checkpointer = MemHubCheckpointer(client)
    model = scripted("Hello!", "Sure.")
    graph = build_graph(client, model, checkpointer, window=window)
    cfg = _config("frank", "f-1")
    graph.invoke({"messages": [("user", "Hi, I'm Frank and I work as a nurse.")]}, cfg)
    graph.invoke({"messages": [("user", "I also keep bees in my garden.")]}, cfg)

    async def all_turns():
        return (
            await client.search_conversation(
                "Frank nurse bees garden hello sure", user_id="frank", limit=50
            )
        ).turns

    contents = sorted(t.content for t in checkpointer._runner.run(all_turns()))
    assert contents == sorted(
        [
            "Hi, I'm Frank and I work as a nurse.",
            "Hello!",
            "I also keep bees in my garden.",
            "Sure.",
        ]
    )
    checkpointer.close()


def test_example_graph_runs(make_client):
    """``examples/langgraph_memory_graph.py``'s graph, with the test embedder."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).parents[3] / "examples" / "langgraph_memory_graph.py"
    spec = importlib.util.spec_from_file_location("langgraph_memory_graph", path)
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example  # pydantic resolves the model's annotations through it
    spec.loader.exec_module(example)

    client = make_client()
    with MemHubCheckpointer(client) as checkpointer:
        model = example.ScriptedModel(messages=iter(["Noted.", "Chickpea curry?"]))
        graph = example.build(client, model, checkpointer)
        example.session(graph, "alice", "s-1", "I'm vegetarian and I'm allergic to peanuts.")
        example.session(graph, "alice", "s-2", "What should I cook tonight?")
        assert "I'm vegetarian" in model.prompts[-1][0].text


@dataclass
class Ctx:
    user_id: str
    session_id: str
    app_id: str = "cooking"


def test_nodes_read_ids_from_the_runtime_context(make_client):
    """LangGraph 1.x passes per-run ids through ``context=`` (``context_schema``), not
    configurable.
    """
    client = make_client()
    model = scripted("Noted.", "Chickpea curry?", "Hello.")

    def call_model(state: State) -> dict:
        system = SystemMessage("You are a cooking assistant.\n\n" + state.get("memories", ""))
        return {"messages": [model.invoke([system, *state["messages"]])]}

    builder = StateGraph(State, context_schema=Ctx)
    builder.add_node("recall", memory_search_node(client))
    builder.add_node("model", call_model)
    builder.add_node("remember", memory_add_node(client))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", "remember")
    builder.add_edge("remember", END)
    graph = builder.compile()

    say = "I'm vegetarian and I'm allergic to peanuts."
    graph.invoke({"messages": [("user", say)]}, context=Ctx("alice", "a-1"))
    graph.invoke({"messages": [("user", "What should I cook?")]}, context=Ctx("alice", "a-2"))
    assert "I'm vegetarian" in model.prompt_text(1)
    # another app of the same user does not see the cooking app's memories
    graph.invoke({"messages": [("user", "What should I cook?")]}, context=Ctx("alice", "b", "x"))
    assert "vegetarian" not in model.prompt_text(2)

    raw = MemHub(client).call_sync(
        lambda api: api.search_conversation("vegetarian", user_id="alice", app_ids=["cooking"])
    )
    raw = raw.turns
    assert {t.session_id for t in raw if t.content == say} == {"a-1"}
