"""MemHubChatMessageHistory under LangChain's ``RunnableWithMessageHistory``, with a scripted model.

``langchain-tests`` ships no standard suite for chat message histories; the
contract tests below follow ``BaseChatMessageHistory``'s documented behaviour
(``InMemoryChatMessageHistory`` is the reference), on both memhub clients.
"""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from lc_fakes import scripted

from memhub import MemoryClient
from memhub.testing import HashEmbedder
from memhub_langchain import MemHubChatMessageHistory

# LangChain deprecates RunnableWithMessageHistory (for LangGraph's persistence), but it is
# still the chain that takes a chat message history, and so what this adapter is for.
pytestmark = pytest.mark.filterwarnings(
    "ignore:RunnableWithMessageHistory is deprecated:DeprecationWarning"
)


def _chain(client, model, user_id: str = "alice"):
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You are a cooking assistant."),
            MessagesPlaceholder("history"),
            ("human", "{question}"),
        ]
    )
    return RunnableWithMessageHistory(
        prompt | model,
        lambda session_id: MemHubChatMessageHistory(client, user_id, session_id),
        input_messages_key="question",
        history_messages_key="history",
    )


def _cfg(session: str) -> dict:
    return {"configurable": {"session_id": session}}


def test_runnable_with_message_history_keeps_turns_and_extracts_facts(sync_client):
    model = scripted("Noted.", "Chickpea curry?", "Hello!")
    chain = _chain(sync_client, model)
    chain.invoke({"question": "I'm vegetarian and I'm allergic to peanuts."}, _cfg("s1"))
    chain.invoke({"question": "What should I cook tonight?"}, _cfg("s1"))

    second_prompt = [(m.type, m.text) for m in model.prompts[1]]
    assert second_prompt[1:3] == [
        ("human", "I'm vegetarian and I'm allergic to peanuts."),
        ("ai", "Noted."),
    ]
    history = MemHubChatMessageHistory(sync_client, "alice", "s1").messages
    assert [(m.type, m.text) for m in history] == [
        ("human", "I'm vegetarian and I'm allergic to peanuts."),
        ("ai", "Noted."),
        ("human", "What should I cook tonight?"),
        ("ai", "Chickpea curry?"),
    ]
    # a new session starts empty, but the facts were extracted into long-term memory
    chain.invoke({"question": "hi"}, _cfg("s2"))
    assert [m.type for m in model.prompts[2]] == ["system", "human"]
    found = sync_client.search("what does the user eat?", user_id="alice")
    assert any("vegetarian" in m.content for m in found.memories.normal + found.memories.profile)
    assert MemHubChatMessageHistory(sync_client, "bob", "s1").messages == []  # per user


def test_clear_archives_the_session_only(sync_client):
    one = MemHubChatMessageHistory(sync_client, "alice", "s1")
    two = MemHubChatMessageHistory(sync_client, "alice", "s2")
    one.add_messages([HumanMessage("I live in Porto"), AIMessage("Nice city.")])
    two.add_messages([HumanMessage("I play the cello")])
    one.clear()
    assert one.messages == []
    assert [m.text for m in two.messages] == ["I play the cello"]
    turns = sync_client.search_conversation("Porto", user_id="alice").turns
    assert [t.content for t in turns] == ["I play the cello"]


def test_contract_of_base_chat_message_history(sync_client):
    """What ``InMemoryChatMessageHistory`` does: order kept, repeats kept, system not stored."""
    history = MemHubChatMessageHistory(sync_client, "carol", "s1")
    assert history.messages == []
    history.add_user_message("yes")
    history.add_ai_message("Are you sure?")
    history.add_messages([HumanMessage("yes"), SystemMessage("host prompt"), AIMessage("OK.")])
    assert [(m.type, m.text) for m in history.messages] == [
        ("human", "yes"),
        ("ai", "Are you sure?"),
        ("human", "yes"),
        ("ai", "OK."),
    ]
    history.add_messages([])
    assert len(history.messages) == 4
    history.clear()
    history.clear()  # idempotent
    assert history.messages == []
    with pytest.raises(ValueError, match="session_id"):
        MemHubChatMessageHistory(sync_client, "carol", "")


def test_async_chain_with_an_async_client(tmp_path):
    async def run() -> None:
        async with MemoryClient(
            storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
        ) as c:
            model = scripted("Noted.", "Lisbon.")
            chain = _chain(c, model)
            await chain.ainvoke({"question": "I live in Lisbon."}, _cfg("a1"))
            await chain.ainvoke({"question": "Where do I live?"}, _cfg("a1"))
            assert "I live in Lisbon." in [m.text for m in model.prompts[1]]
            history = MemHubChatMessageHistory(c, "alice", "a1")
            assert len(await history.aget_messages()) == 4
            await history.aclear()
            assert await history.aget_messages() == []

    asyncio.run(run())
