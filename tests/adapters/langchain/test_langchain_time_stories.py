"""Stories told over months through ``MemHubMiddleware`` in ``create_agent`` (one checkpointed
thread per session, each on its own day), the real e5 embedder."""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from lc_fakes import scripted
from time_stories import TIME_STORIES, TimedStory, assert_shown, run

from memhub import SyncMemoryClient
from memhub_langchain import MemHubMiddleware


@pytest.mark.parametrize("story", TIME_STORIES)
def test_the_last_session_sees_the_newest_value_dated_as_said(story: TimedStory, e5, tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "store", embed=e5, cwd=tmp_path) as client:
        model = scripted(*["Got it."] * story.turns)
        agent = create_agent(
            model,
            system_prompt="You are a helpful assistant.",
            middleware=[MemHubMiddleware(client, user_id="alice")],
            checkpointer=InMemorySaver(),
        )

        def session(i: int, turns: tuple[str, ...]) -> None:
            for text in turns:
                agent.invoke(
                    {"messages": [{"role": "user", "content": text}]},
                    {"configurable": {"thread_id": f"t{i}"}},
                )

        run(story, session)
        assert_shown(model.system_text(), story)
