"""Stories told over months through ``memory_search_node`` and ``memory_add_node`` in a
checkpointed ``StateGraph`` (one thread per session, each on its own day), the real e5
embedder."""

from __future__ import annotations

import pytest
from lg_fakes import memory_graph, scripted
from time_stories import TIME_STORIES, TimedStory, assert_shown, run

from memhub_langgraph import MemHubCheckpointer


@pytest.mark.parametrize("story", TIME_STORIES)
def test_the_last_session_sees_the_newest_value_dated_as_said(story: TimedStory, make_client, e5):
    client = make_client(embed=e5)
    checkpointer = MemHubCheckpointer(client)
    model = scripted(*["Got it."] * story.turns)
    graph = memory_graph(client, model, checkpointer)

    def session(i: int, turns: tuple[str, ...]) -> None:
        config = {"configurable": {"user_id": "alice", "thread_id": f"t{i}"}}
        for text in turns:
            graph.invoke({"messages": [("user", text)]}, config)

    run(story, session)
    assert_shown(model.prompts[-1][0].text, story)
    checkpointer.close()
