"""Stories told over months through ``MemHubHooks`` on a real Agentica ``Agent`` (one run per
session, flushed at its end, each on its own day), the real e5 embedder."""

from __future__ import annotations

import pytest
from agentica import Agent
from time_stories import TIME_STORIES, TimedStory, arun, assert_shown

from memhub import MemoryClient
from memhub_agentica import MemHubHooks
from memhub_agentica.testing import ScriptedModel


@pytest.mark.parametrize("story", TIME_STORIES)
async def test_the_last_session_sees_the_newest_value_dated_as_said(
    story: TimedStory, e5, tmp_path
):
    async with MemoryClient(storage_dir=tmp_path / "store", embed=e5, cwd=tmp_path) as client:
        hooks = MemHubHooks(client, user_id="alice", add_every=0)
        models: list[ScriptedModel] = []

        async def session(i: int, turns: tuple[str, ...]) -> None:
            model = ScriptedModel(replies=["Got it."] * len(turns))
            models.append(model)
            agent = Agent(
                model=model,
                instructions="You are a helpful assistant.",
                add_history_to_context=True,
                session_id=f"s{i}",
            )
            for text in turns:
                await agent.run(text, hooks=hooks)
            await hooks.flush_pending(agent)

        await arun(story, session)
        shown = models[-1].last_user()
        assert shown.startswith(story.asked) and "<memhub_memories>" in shown
        assert_shown(shown, story)
