"""MemHubMemory in a real classic ``ConversationChain`` with a scripted fake model."""

from __future__ import annotations

import warnings

import pytest
from langchain_core.messages import SystemMessage
from lc_fakes import scripted

from memhub.bridge import MemHub
from memhub_langchain import MemHubMemory

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import ConversationChain

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore:.*deprecated.*")


def _raw(client, query: str, user_id: str = "alice") -> list[str]:
    return [t.content for t in client.search_conversation(query, user_id=user_id, limit=50).turns]


def test_session_is_added_on_clear_and_recalled_in_the_next_session(sync_client):
    sync_client.add(content="My favorite color is green", user_id="bob")
    memory = MemHubMemory(client=sync_client, user_id="alice", session_id="s1")
    chain = ConversationChain(llm=scripted("Nice, blue it is."), memory=memory)
    chain.invoke({"input": "My favorite color is blue."})

    assert _raw(sync_client, "favorite color blue") == []  # save_context only buffers
    assert [m.type for m in memory.buffer] == ["human", "ai"]
    memory.clear()
    assert memory.buffer == []
    turns = sync_client.search_conversation(
        "favorite color blue", user_id="alice", session_id="s1"
    ).turns
    assert {t.content for t in turns} == {"My favorite color is blue.", "Nice, blue it is."}

    model = scripted("Blue.")
    chain = ConversationChain(llm=model, memory=MemHubMemory(client=sync_client, user_id="alice"))
    chain.invoke({"input": "What is my favorite color?"})
    prompt = model.prompt_text()
    assert "My favorite color is blue" in prompt and "green" not in prompt


def test_the_current_session_is_rendered_after_the_memories(sync_client):
    sync_client.add(content="I live in Lisbon", user_id="alice")
    model = scripted("Hi!", "Lisbon.")
    chain = ConversationChain(llm=model, memory=MemHubMemory(client=sync_client, user_id="alice"))
    chain.invoke({"input": "Hello"})
    chain.invoke({"input": "Where do I live?"})

    prompt = model.prompt_text()
    assert prompt.index("I live in Lisbon") < prompt.index("Human: Hello") < prompt.index("AI: Hi!")


async def test_async_chain_with_native_async_memory(client):
    await client.add(content="I am vegetarian", user_id="alice")
    memory = MemHubMemory(client=client, user_id="alice", return_messages=True)
    variables = await memory.aload_memory_variables({"input": "Recommend a vegetarian dinner"})
    system = variables["history"][0]
    assert isinstance(system, SystemMessage) and "I am vegetarian" in system.text

    await memory.asave_context(
        {"input": "Recommend a vegetarian dinner"}, {"response": "Try a lentil curry."}
    )
    result = await memory.aend_session()
    assert result is not None and len(result.raw_ids) == 2
    assert await memory.aend_session() is None  # nothing new said
    turns = (await client.search_conversation("lentil curry", user_id="alice")).turns
    assert any(t.content == "Try a lentil curry." for t in turns)


async def test_aclear_adds_through_a_sync_client_without_blocking(sync_client):
    memory = MemHubMemory(client=sync_client, user_id="alice")
    model = scripted("Noted: Friday.")
    chain = ConversationChain(llm=model, memory=memory)
    await chain.ainvoke({"input": "My dentist appointment is on Friday"})
    await memory.aclear()
    turns = (
        await MemHub(sync_client).search_conversation("dentist appointment", user_id="alice")
    ).turns
    assert "My dentist appointment is on Friday" in [t.content for t in turns]


def test_end_session_returns_the_write(sync_client):
    memory = MemHubMemory(client=sync_client, user_id="alice", agent_id="support")
    memory.save_context({"input": "We use the Pro plan"}, {"output": "Pro plan noted."})
    written = memory.end_session()
    assert written is not None and written.extracted_count >= 1
    items = sync_client.list(user_id="alice", agent_id="support")
    assert any("Pro plan" in m.content for m in items)
    assert sync_client.list(user_id="alice", agent_id="sales") == []


def test_ambiguous_inputs_ask_for_input_key(sync_client):
    memory = MemHubMemory(client=sync_client, user_id="alice")
    with pytest.raises(ValueError, match="set input_key"):
        memory.load_memory_variables({"question": "a", "topic": "b"})
