"""Stories told over months through ``memory_search_node`` and ``memory_add_node`` in a
checkpointed ``StateGraph`` (one thread per session, each on its own day), the real e5
embedder."""

from __future__ import annotations

import pytest
from langchain_core.messages import SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from lg_fakes import scripted
from time_stories import TIME_STORIES, TimedStory, assert_shown, run

from memhub_langgraph import MemHubCheckpointer, memory_add_node, memory_search_node


class State(MessagesState):
    memories: str


@pytest.mark.parametrize("story", TIME_STORIES)
def test_the_last_session_sees_the_newest_value_dated_as_said(story: TimedStory, make_client, e5):
    client = make_client(embed=e5)
    checkpointer = MemHubCheckpointer(client)
    model = scripted(*["Got it."] * story.turns)

    def call_model(state: State) -> dict:
        system = SystemMessage("You are a helpful assistant.\n\n" + state["memories"])
        return {"messages": [model.invoke([system, *state["messages"]])]}

    builder = StateGraph(State)
    builder.add_node("recall", memory_search_node(client))
    builder.add_node("model", call_model)
    builder.add_node("remember", memory_add_node(client))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(checkpointer=checkpointer)

    def session(i: int, turns: tuple[str, ...]) -> None:
        config = {"configurable": {"user_id": "alice", "thread_id": f"t{i}"}}
        for text in turns:
            graph.invoke({"messages": [("user", text)]}, config)

    run(story, session)
    assert_shown(model.prompts[-1][0].text, story)
    checkpointer.close()
