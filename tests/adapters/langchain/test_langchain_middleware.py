"""MemHubMiddleware in a real ``create_agent`` graph with a scripted fake model."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from lc_fakes import scripted

from memhub import SyncMemoryClient
from memhub.testing import HashEmbedder
from memhub_langchain import MemHubMiddleware


@dataclass
class Context:
    user_id: str


def _ask(text: str) -> dict:
    return {"messages": [{"role": "user", "content": text}]}


def _raw_contents(client, query: str, user_id: str = "alice") -> list[str]:
    return [t.content for t in client.search_conversation(query, user_id=user_id, limit=50).turns]


def test_memory_from_session_one_reaches_the_prompt_of_session_two(sync_client):
    sync_client.add(content="My favorite color is green", user_id="bob")
    middleware = MemHubMiddleware(sync_client)

    first = scripted("Blue, noted.")
    agent = create_agent(first, middleware=[middleware], context_schema=Context)
    agent.invoke(_ask("My favorite color is blue."), context=Context(user_id="alice"))
    assert "blue" not in first.system_text().lower()  # nothing known yet in session 1

    second = scripted("Your favorite color is blue.")
    agent = create_agent(
        second,
        system_prompt="You are a helpful assistant.",
        middleware=[middleware],
        context_schema=Context,
    )
    out = agent.invoke(_ask("What is my favorite color?"), context=Context(user_id="alice"))

    system = second.system_text()
    assert system.startswith("You are a helpful assistant.")  # memories go after the host's prompt
    assert "My favorite color is blue" in system
    assert "green" not in second.prompt_text()  # bob's memory never reaches alice's prompt
    assert out["messages"][-1].content == "Your favorite color is blue."
    # Both sessions were added as raw turns.
    raw = _raw_contents(sync_client, "favorite color")
    assert "My favorite color is blue." in raw and "What is my favorite color?" in raw
    assert "My favorite color is green" not in raw


async def test_async_agent_recalls_and_adds_with_an_async_client(client):
    await client.add(content="My favorite color is green", user_id="bob")
    middleware = MemHubMiddleware(client)

    await create_agent(scripted("Noted."), middleware=[middleware], context_schema=Context).ainvoke(
        _ask("I am allergic to peanuts."), context=Context(user_id="alice")
    )
    model = scripted("No peanuts, then.")
    await create_agent(model, middleware=[middleware], context_schema=Context).ainvoke(
        _ask("Suggest a snack, remember my allergies."), context=Context(user_id="alice")
    )

    assert "allergic to peanuts" in model.system_text()
    assert "green" not in model.prompt_text()
    turns = (await client.search_conversation("allergic peanuts", user_id="alice")).turns
    assert any(t.content == "I am allergic to peanuts." for t in turns)
    bob = (await client.search_conversation("allergic peanuts", user_id="bob")).turns
    assert all("peanuts" not in t.content for t in bob)


def test_memories_stay_out_of_the_checkpointed_thread_and_turns_are_added_once(sync_client):
    sync_client.add(content="I live in Berlin", user_id="alice")
    model = scripted("Hello!", "Berlin it is.")
    agent = create_agent(
        model,
        middleware=[MemHubMiddleware(sync_client, user_id="alice")],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "t-1"}}

    agent.invoke(_ask("Hi there"), config)
    state = agent.invoke(_ask("Where do I live?"), config)

    assert "I live in Berlin" in model.system_text()
    assert not any(
        "I live in Berlin" in m.text for m in state["messages"]
    )  # the block never enters the state
    raw = _raw_contents(sync_client, "Hi there Where do I live Hello")
    assert (
        raw.count("Hi there") == 1 and raw.count("Hello!") == 1
    )  # the resumed thread adds only its new turn
    turns = sync_client.search_conversation(
        "Where do I live", user_id="alice", session_id="t-1"
    ).turns
    assert any(t.content == "Where do I live?" for t in turns)  # the thread id is the session


def test_history_resent_by_the_caller_is_not_added_again(sync_client):
    agent = create_agent(
        scripted("Hi Alice.", "Paris."), middleware=[MemHubMiddleware(sync_client, user_id="alice")]
    )
    first = agent.invoke(_ask("Hello, I am Alice"))
    resent = [*first["messages"], {"role": "user", "content": "What is the capital of France?"}]
    agent.invoke({"messages": resent})  # stateless: the client sends the whole chat each time

    raw = _raw_contents(sync_client, "Hello I am Alice capital of France Paris")
    assert raw.count("Hello, I am Alice") == 1 and raw.count("Hi Alice.") == 1
    assert "What is the capital of France?" in raw and "Paris." in raw


def test_tool_output_and_system_prompt_are_never_stored(sync_client):
    @tool
    def lookup_order(order_id: str) -> str:
        """Look up an order."""
        return "INTERNAL-TOOL-RESULT shipped"

    call = AIMessage(
        content="", tool_calls=[{"name": "lookup_order", "args": {"order_id": "42"}, "id": "c1"}]
    )
    model = scripted(call, "Order 42 has shipped.")
    agent = create_agent(
        model,
        tools=[lookup_order],
        system_prompt="SYSTEM-PROMPT-TEXT",
        middleware=[MemHubMiddleware(sync_client, user_id="alice")],
    )
    agent.invoke(_ask("Where is my order 42?"))

    assert (
        len(model.prompts) == 2
    )  # the tool loop calls the model twice, both with memories recalled
    raw = _raw_contents(sync_client, "INTERNAL-TOOL-RESULT SYSTEM-PROMPT-TEXT order 42 shipped")
    assert "Where is my order 42?" in raw and "Order 42 has shipped." in raw
    assert not any("INTERNAL-TOOL-RESULT" in t or "SYSTEM-PROMPT-TEXT" in t for t in raw)


def test_add_false_only_recalls(sync_client):
    sync_client.add(content="I prefer tea over coffee", user_id="alice")
    model = scripted("Tea.")
    agent = create_agent(
        model, middleware=[MemHubMiddleware(sync_client, user_id="alice", add=False)]
    )
    agent.invoke(_ask("What drink do I prefer, tea or coffee?"))

    assert "I prefer tea over coffee" in model.system_text()
    assert _raw_contents(sync_client, "What drink do I prefer") == ["I prefer tea over coffee"]


def test_context_user_wins_over_the_constructor_default(sync_client):
    sync_client.add(content="I play the cello", user_id="carol")
    sync_client.add(content="I play the drums", user_id="alice")
    model = scripted("Cello.")
    agent = create_agent(
        model, middleware=[MemHubMiddleware(sync_client, user_id="alice")], context_schema=Context
    )
    agent.invoke(_ask("Which instrument do I play?"), context=Context(user_id="carol"))

    assert "cello" in model.system_text() and "drums" not in model.prompt_text()


def test_missing_user_id_is_a_clear_error(sync_client):
    agent = create_agent(scripted("x"), middleware=[MemHubMiddleware(sync_client)])
    with pytest.raises(ValueError, match="needs a user_id"):
        agent.invoke(_ask("hello"))


def test_unknown_group_is_rejected_at_construction(sync_client):
    with pytest.raises(ValueError, match="unknown memory groups"):
        MemHubMiddleware(sync_client, groups=("profile", "everything"))


class _QueryLog(HashEmbedder):
    """The test embedder, keeping every query it embeds (one per memhub search)."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    async def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return await super().embed_query(text)


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}."


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_one_search_per_user_turn_across_its_tool_calls(tmp_path, mode):
    embed = _QueryLog()
    with SyncMemoryClient(storage_dir=tmp_path / "s", embed=embed, cwd=tmp_path) as client:
        client.add(content="I live in Porto", user_id="alice")
        calls = AIMessage(
            content="",
            tool_calls=[
                {"name": "weather", "args": {"city": c}, "id": f"call-{c}", "type": "tool_call"}
                for c in ("Porto", "Lisbon", "Faro")
            ],
        )
        model = scripted(calls, "Sunny everywhere.", "Porto.")
        agent = create_agent(
            model,
            tools=[weather],
            middleware=[MemHubMiddleware(client)],
            context_schema=Context,
            checkpointer=InMemorySaver(),
        )
        config = {"configurable": {"thread_id": "t"}}
        question = "What's the weather in my city and nearby?"
        embed.queries.clear()
        if mode == "sync":
            agent.invoke(_ask(question), config, context=Context(user_id="alice"))
        else:
            asyncio.run(agent.ainvoke(_ask(question), config, context=Context(user_id="alice")))

        assert len(model.prompts) == 2  # the tool-calling call, then the answer
        assert all("I live in Porto" in model.system_text(i) for i in (0, 1))
        assert embed.queries == [question]  # one search for the turn, not one per model call
        agent.invoke(_ask("Where do I live?"), config, context=Context(user_id="alice"))
        assert embed.queries == [question, "Where do I live?"]  # the next turn searches again
