"""MemHubHooks and MemHubAgentHooks on a real Agentica ``Agent`` with a scripted ``Model``."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from agentica import Agent

from memhub import UsageError
from memhub_agentica import MemHubAgentHooks, MemHubHooks
from memhub_agentica.testing import ScriptedModel, ToolCall

SESSION_ONE = ["我最喜欢的颜色是蓝色", "我喜欢吃川菜", "总结一下你了解到的关于我的信息"]


def _agent(model: ScriptedModel, **kwargs) -> Agent:
    return Agent(
        model=model, add_history_to_context=True, instructions="你是一个友好的助手。", **kwargs
    )


async def _raw(client, query: str, user_id: str = "alice", **scope) -> list[str]:
    return [
        t.content
        for t in (await client.search_conversation(query, user_id=user_id, limit=50, **scope)).turns
    ]


async def test_session_is_persisted_once_and_recalled_in_the_next(client):
    await client.add(content="我最喜欢的颜色是绿色", user_id="bob")
    hooks = MemHubHooks(client, user_id="alice", add_every=0)

    first = _agent(ScriptedModel(replies=["好的，记住了", "川菜很棒", "你喜欢蓝色和川菜"]))
    for message in SESSION_ONE:
        await first.run(message, hooks=hooks)
    assert await _raw(client, "蓝色 川菜") == []  # add_every=0: nothing until the flush
    write = await hooks.flush_pending(first)

    assert write is not None and len(write.raw_ids) == 6 and write.commit_passed
    raw = await _raw(client, "蓝色 川菜 总结")
    assert set(SESSION_ONE) <= set(raw) and not any("memhub_memories" in t for t in raw)
    assert await hooks.flush_pending(first) is None  # idempotent

    model = ScriptedModel(replies=["你最喜欢蓝色", "当然"])
    second = _agent(model)
    await second.run("我最喜欢什么颜色？", hooks=hooks)
    await second.run("推荐一道菜", hooks=hooks)

    recalled = model.last_user(0)
    assert recalled.startswith("我最喜欢什么颜色？") and "<memhub_memories>" in recalled
    assert "我最喜欢的颜色是蓝色" in recalled and "绿色" not in model.everything(
        0
    )  # never bob's memories
    assert model.system(0) == model.system(
        1
    )  # memories ride on the user turn: the system prefix holds still


@pytest.fixture
def porto(sync_client):
    sync_client.add(content="I live in Porto", user_id="alice")
    return sync_client


async def test_each_run_is_added_by_default_without_the_injected_block(porto):
    sync_client = porto
    hooks = MemHubHooks(sync_client)  # a SyncMemoryClient, awaited on its own loop
    model = ScriptedModel(replies=["Porto is lovely."])
    agent = _agent(model, user_id="alice")  # the user comes from the Agent

    await agent.run("Where do I live?", hooks=hooks)

    assert "I live in Porto" in model.last_user()
    assert hooks.last_write is not None and len(hooks.last_write.raw_ids) == 2
    turns = await hooks.memory.memhub.search_conversation("Where do I live", user_id="alice")
    assert "Where do I live?" in [t.content for t in turns.turns]
    # Agentica keeps its own history, without the turn's memory block
    assert agent.working_memory.messages[-2].content == "Where do I live?"


async def test_additional_context_mode_is_restored_after_the_run(client):
    await client.add(content="I prefer answers in German", user_id="alice")
    hooks = MemHubHooks(client, user_id="alice", inject="additional_context")
    model = ScriptedModel(replies=["Gern."])
    agent = _agent(model)
    agent.prompt_config.additional_context = "Company style: be brief."

    await agent.run("Which language should you answer in?", hooks=hooks)

    assert (
        "Company style: be brief." in model.system()
        and "I prefer answers in German" in model.system()
    )
    assert "<memhub_memories>" not in model.last_user()
    assert agent.prompt_config.additional_context == "Company style: be brief."


async def test_agent_hooks_snapshot_memories_once_per_session(client):
    await client.add(content="My dog is called Rex", user_id="alice")
    await client.add(content="My dog is called Bello", user_id="bob")
    hooks = MemHubAgentHooks(client, user_id="alice", add_every=0)
    model = ScriptedModel(replies=["Rex!", "Sure."])
    agent = _agent(model, hooks=hooks)

    await agent.run("What is my dog called?")
    await agent.run("Thanks, and the weather?")

    assert "My dog is called Rex" in model.system(0) and "Bello" not in model.everything(0)
    assert model.system(0) == model.system(
        1
    )  # one snapshot per session: a stable, cacheable prompt
    assert await hooks.flush_pending(agent) is not None
    assert "Thanks, and the weather?" in await _raw(client, "weather dog")


async def test_a_run_without_a_user_fails_clearly(client):
    agent = _agent(ScriptedModel(replies=["x"]))
    with pytest.raises(ValueError, match="need a user_id"):
        await agent.run("hello", hooks=MemHubHooks(client))


def test_bad_options_are_rejected(sync_client):
    with pytest.raises(ValueError, match="inject"):
        MemHubHooks(sync_client, inject="system")
    with pytest.raises(ValueError, match="unknown memory groups"):
        MemHubAgentHooks(sync_client, groups=("everything",))
    with pytest.raises(ValueError, match="add_every"):
        MemHubHooks(sync_client, add_every=-1)


async def test_agent_flush_pending_adds_the_buffered_session(client):
    """Agentica's own shutdown call, ``await agent.flush_pending()``, drains memhub's buffer."""
    run_hooks = MemHubHooks(client, user_id="alice", add_every=0)
    first = _agent(ScriptedModel(replies=["好的", "不错"]), session_id="s-run")
    for message in ("我在杭州工作", "我养了一只猫"):
        await first.run(message, hooks=run_hooks)
    agent_hooks = MemHubAgentHooks(client, user_id="alice", add_every=0)
    second = _agent(ScriptedModel(replies=["好"]), session_id="s-agent", hooks=agent_hooks)
    await second.run("我喜欢爬山")
    assert await _raw(client, "杭州 猫 爬山") == []

    await first.flush_pending()
    await second.flush_pending()

    raw = await _raw(client, "杭州 猫 爬山")
    assert {"我在杭州工作", "我养了一只猫", "我喜欢爬山"} <= set(raw)
    await first.flush_pending()  # nothing left: no second add
    assert sorted(await _raw(client, "杭州 猫 爬山")) == sorted(raw)


async def test_only_the_current_turn_carries_a_memory_block(client):
    await client.add(content="I live in Porto and I am vegetarian", user_id="alice")
    hooks = MemHubHooks(client, user_id="alice")
    model = ScriptedModel(replies=["a", "b", "c", "d"])
    agent = _agent(model)
    for question in ("Where do I live?", "What do I eat?", "Where is home?", "Diet again?"):
        await agent.run(question, hooks=hooks)

    assert [model.everything(call).count("<memhub_memories>") for call in range(4)] == [1] * 4
    assert "Where do I live?" in model.everything(3)  # the history itself is kept
    assert len(model.everything(3)) < len(model.everything(0)) + 200


async def test_the_session_transcript_keeps_the_users_words(client, tmp_path):
    """Agentica writes each user turn to its session transcript (resume, export, and the
    ``search_session`` tool the model can call): the memory block is the model's, not the
    user's words, and a memory recalled there would outlive a later change or erasure."""
    await client.add(content="I live in Berlin", user_id="alice")
    hooks = MemHubHooks(client, user_id="alice")
    model = ScriptedModel(replies=["Berlin.", "Noted."])
    agent = _agent(model, session_id="t1", session_base_dir=str(tmp_path / "sessions"))

    for question in ("Where do I live?", "I moved to Munich."):
        await agent.run(question, hooks=hooks)

    assert "I live in Berlin" in model.last_user(0)  # the model is still shown the memories
    said = [e["content"] for e in agent.session_log.iter_raw_entries() if e["type"] == "user"]
    assert said == ["Where do I live?", "I moved to Munich."]


async def test_every_model_call_of_a_turn_sees_the_block_once(client):
    await client.add(content="I live in Munich", user_id="alice")
    hooks = MemHubHooks(client, user_id="alice")

    def weather(city: str) -> str:
        """The weather of a city."""
        return f"sunny in {city}"

    model = ScriptedModel(replies=[ToolCall("weather", {"city": "Munich"}), "Sunny in Munich."])
    agent = _agent(model, tools=[weather])

    await agent.run("What's the weather where I live?", hooks=hooks)

    assert len(model.prompts) == 2  # the tool call, then the answer
    assert [model.everything(call).count("<memhub_memories>") for call in range(2)] == [1, 1]
    assert "I live in Munich" in model.last_user(1)
    assert hooks.last_write is not None
    turns = await _raw(client, "weather Munich sunny")
    assert "sunny in Munich" not in turns  # tool output is never stored


async def test_hooks_in_the_wrong_slot_say_which_slot(client):
    wrong_agent_slot = _agent(
        ScriptedModel(replies=["x"]), user_id="alice", hooks=MemHubHooks(client)
    )
    with pytest.raises(UsageError, match=r"agent\.run\(msg, hooks=hooks\).*MemHubAgentHooks"):
        await wrong_agent_slot.run("hello")
    agent = _agent(ScriptedModel(replies=["x"]), user_id="alice")
    with pytest.raises(UsageError, match=r"Agent\(hooks=hooks\).*MemHubHooks"):
        await agent.run("hello", hooks=MemHubAgentHooks(client))


def test_a_session_never_flushed_is_reported_at_exit(tmp_path):
    script = tmp_path / "forgot.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import asyncio, os
            os.environ["AGENTICA_HOME"] = {str(tmp_path / "home")!r}
            from memhub_agentica.testing import ScriptedModel
            from agentica import Agent
            from memhub import SyncMemoryClient
            from memhub.testing import HashEmbedder
            from memhub_agentica import MemHubHooks

            client = SyncMemoryClient(storage_dir={str(tmp_path / "store")!r}, embed=HashEmbedder())
            hooks = MemHubHooks(client, user_id="alice", add_every=0)
            agent = Agent(model=ScriptedModel(replies=["ok"]), session_id="s-lost")
            asyncio.run(agent.run("remember that I like tea", hooks=hooks))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" in done.stderr and "'s-lost'" in done.stderr
    assert "agent.flush_pending()" in done.stderr
