"""``MemHubHooks`` on a real Agentica ``Agent``: one agent run per session, flushed at its end,
the real e5 embedder."""

from __future__ import annotations

import pytest
from agentica import Agent
from multi_session import STORIES, Story, assert_current, assert_every_turn

from memhub import MemoryClient
from memhub_agentica import MemHubHooks
from memhub_agentica.testing import ScriptedModel


@pytest.mark.parametrize("story", STORIES)
async def test_the_last_session_sees_only_the_current_value(story: Story, e5, tmp_path):
    async with MemoryClient(storage_dir=tmp_path / "store", embed=e5, cwd=tmp_path) as client:
        hooks = MemHubHooks(client, user_id="alice", add_every=0)
        prompts = []
        for i, turns in enumerate(story.sessions, 1):
            model = ScriptedModel(replies=["Got it."] * len(turns))
            agent = Agent(
                model=model,
                instructions="You are a helpful assistant.",
                add_history_to_context=True,
                session_id=f"s{i}",
            )
            for text in turns:
                await agent.run(text, hooks=hooks)
            await hooks.flush_pending(agent)
            prompts += [model.everything(call) for call in range(len(model.prompts))]

        shown = model.last_user()
        assert shown.startswith(story.asked) and "<memhub_memories>" in shown
        assert_current(shown, story)
        assert_every_turn(prompts, story)
