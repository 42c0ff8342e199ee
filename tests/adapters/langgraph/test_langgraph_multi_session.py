"""``memory_search_node`` and ``memory_add_node`` in a checkpointed ``StateGraph``, one thread per
session, the real e5 embedder."""

from __future__ import annotations

import pytest
from lg_fakes import memory_graph, scripted
from multi_session import STORIES, Story, assert_current, assert_every_turn

from memhub_langgraph import MemHubCheckpointer


@pytest.mark.parametrize("story", STORIES)
def test_the_last_session_sees_only_the_current_value(story: Story, make_client, e5):
    client = make_client(embed=e5)
    checkpointer = MemHubCheckpointer(client)  # the threads live in the same store
    model = scripted(*["Got it."] * story.turns)
    graph = memory_graph(client, model, checkpointer)

    for i, turns in enumerate(story.sessions, 1):
        config = {"configurable": {"user_id": "alice", "thread_id": f"t{i}"}}
        for text in turns:
            graph.invoke({"messages": [("user", text)]}, config)

    system = model.prompts[-1][0].text
    assert system.startswith("You are a helpful assistant.")
    assert_current(system, story)
    assert_every_turn([prompt[0].text for prompt in model.prompts], story)
    checkpointer.close()
