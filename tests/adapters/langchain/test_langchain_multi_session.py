"""MemHubMiddleware in ``create_agent``, one checkpointed thread per session, the
real e5 embedder.
"""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from lc_fakes import scripted
from multi_session import STORIES, Story, assert_current, assert_every_turn

from memhub import SyncMemoryClient
from memhub_langchain import MemHubMiddleware


@pytest.mark.parametrize("story", STORIES)
def test_the_last_session_sees_only_the_current_value(story: Story, e5, tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "store", embed=e5, cwd=tmp_path) as client:
        model = scripted(*["Got it."] * story.turns)
        agent = create_agent(
            model,
            system_prompt="You are a helpful assistant.",
            middleware=[MemHubMiddleware(client, user_id="alice")],
            checkpointer=InMemorySaver(),
        )
        for i, turns in enumerate(story.sessions, 1):
            config = {"configurable": {"thread_id": f"t{i}"}}
            for text in turns:
                agent.invoke({"messages": [{"role": "user", "content": text}]}, config)

        assert_current(model.system_text(), story)
        assert_every_turn([model.system_text(i) for i in range(len(model.prompts))], story)
