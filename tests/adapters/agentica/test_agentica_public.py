"""The public surface of memhub-agentica."""

from __future__ import annotations

import memhub_agentica


def test_public_surface_is_pinned():
    assert sorted(memhub_agentica.__all__) == ["MemHubAgentHooks", "MemHubHooks"]
    for name in memhub_agentica.__all__:
        assert getattr(memhub_agentica, name).__doc__


async def test_the_shipped_scripted_model_runs_an_agent_offline():
    from agentica import Agent

    from memhub_agentica.testing import ScriptedModel

    model = ScriptedModel(replies=["first"], respond=lambda messages: f"echo {len(messages)}")
    agent = Agent(model=model)
    assert (await agent.run("hello")).content == "first"
    assert (await agent.run("again")).content.startswith("echo ")
    assert model.last_user() == "again" and model.last_user(0) == "hello"
    assert (await Agent(model=ScriptedModel()).run("hi")).content == "OK."
