"""MemHubMemory and MemHubMemoryBlock in real LlamaIndex chat engines and agents, offline."""

from __future__ import annotations

import pytest
from li_fakes import ScriptedLLM, scripted_function_llm, text
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.chat_engine import CondensePlusContextChatEngine, SimpleChatEngine
from llama_index.core.memory import Memory
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.tools import FunctionTool

from memhub_llamaindex import MemHubMemory, MemHubMemoryBlock

# LlamaIndex's workflow engine inspects its own pydantic models with deprecated accessors.
pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.PydanticDeprecatedSince20",
    "ignore::pydantic.warnings.PydanticDeprecatedSince211",
)


def _raw(client, query: str, user_id: str = "alice", **scope) -> list[str]:
    return [
        t.content
        for t in client.search_conversation(query, user_id=user_id, limit=50, **scope).turns
    ]


def test_simple_chat_engine_remembers_across_sessions(sync_client):
    sync_client.add(content="My favorite color is green", user_id="bob")

    memory = MemHubMemory.from_defaults(client=sync_client, user_id="alice", session_id="s1")
    first = ScriptedLLM("Blue, noted.")
    SimpleChatEngine.from_defaults(llm=first, memory=memory).chat("My favorite color is blue.")
    assert "blue" not in first.prompts[0].split("user:")[0].lower()  # nothing known in session 1
    assert set(_raw(sync_client, "favorite color", session_id="s1")) == {
        "My favorite color is blue.",
        "Blue, noted.",
    }

    second = ScriptedLLM("Blue.")
    memory = MemHubMemory.from_defaults(client=sync_client, user_id="alice", session_id="s2")
    reply = SimpleChatEngine.from_defaults(llm=second, memory=memory).chat(
        "What is my favorite color?"
    )

    assert str(reply) == "Blue."
    assert "My favorite color is blue" in second.prompts[-1]
    assert "green" not in second.prompts[-1]  # bob's memories never reach alice's prompt


async def test_async_chat_engine_with_an_async_client(client):
    await client.add(content="I am allergic to peanuts", user_id="alice")
    await client.add(content="I am allergic to shellfish", user_id="bob")
    memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id="s9")
    llm = ScriptedLLM("Then no peanut snacks.")
    await SimpleChatEngine.from_defaults(llm=llm, memory=memory).achat(
        "Suggest a snack given my allergies"
    )

    assert "I am allergic to peanuts" in llm.prompts[-1] and "shellfish" not in llm.prompts[-1]
    turns = (
        await client.search_conversation("snack allergies", user_id="alice", session_id="s9")
    ).turns
    assert {t.content for t in turns} == {
        "Suggest a snack given my allergies",
        "Then no peanut snacks.",
    }


class _Policies(BaseRetriever):
    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [
            NodeWithScore(node=TextNode(text="Refunds are possible within 30 days."), score=1.0)
        ]


def test_condense_plus_context_engine_sees_memories_and_documents(sync_client):
    sync_client.add(content="I bought the Acme X200 router", user_id="alice")
    memory = MemHubMemory.from_defaults(client=sync_client, user_id="alice")
    llm = ScriptedLLM("Yes, the X200 can be refunded within 30 days.")
    engine = CondensePlusContextChatEngine.from_defaults(
        retriever=_Policies(), llm=llm, memory=memory, skip_condense=True
    )
    engine.chat("Can I get a refund for my router?")

    prompt = llm.prompts[-1]
    assert (
        "I bought the Acme X200 router" in prompt
        and "Refunds are possible within 30 days." in prompt
    )
    assert "Can I get a refund for my router?" in _raw(sync_client, "refund router")

    # a new conversation: the short-term history is gone, the long-term memory is not
    engine.reset()
    assert memory.get_all() == []


async def test_function_agent_recalls_adds_once_per_turn_and_drops_tool_output(client):
    await client.add(content="My order number is 4711", user_id="alice")
    await client.add(content="My order number is 9999", user_id="bob")

    def order_status(order_id: str) -> str:
        """Look up the status of an order."""
        return f"INTERNAL-TOOL-RESULT order {order_id} shipped"

    call = ChatMessage(
        role="assistant",
        blocks=[
            ToolCallBlock(
                tool_call_id="c1", tool_name="order_status", tool_kwargs={"order_id": "4711"}
            )
        ],
    )
    llm, prompts = scripted_function_llm(
        call, ChatMessage(role="assistant", content="Order 4711 has shipped.")
    )
    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(order_status)],
        llm=llm,
        system_prompt="You help shoppers.",
    )
    memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id="s1")

    response = await agent.run(user_msg="Where is my order?", memory=memory)

    assert "Order 4711 has shipped." in str(response)
    assert len(prompts) == 2 and all("My order number is 4711" in text(p) for p in prompts)
    assert not any("9999" in text(p) for p in prompts)
    turns = (
        await client.search_conversation(
            "Where is my order shipped", user_id="alice", session_id="s1"
        )
    ).turns
    contents = [t.content for t in turns]
    assert sorted(contents) == [
        "Order 4711 has shipped.",
        "Where is my order?",
    ]  # one add, no tool output


def test_session_mode_adds_only_at_end_session(sync_client):
    memory = MemHubMemory.from_defaults(
        client=sync_client, user_id="alice", session_id="s1", add_every="session"
    )
    engine = SimpleChatEngine.from_defaults(llm=ScriptedLLM("Noted.", "Noted too."), memory=memory)
    engine.chat("We run Postgres 16 in production")
    engine.chat("and Redis 7 for caching")
    assert _raw(sync_client, "Postgres Redis production caching") == []

    written = memory.end_session()
    assert written is not None and len(written.raw_ids) == 4
    assert memory.end_session() is None  # nothing new said
    assert "and Redis 7 for caching" in _raw(sync_client, "Postgres Redis production caching")


def test_block_alone_in_a_memory_stores_what_the_buffer_flushes(sync_client):
    block = MemHubMemoryBlock(client=sync_client, user_id="alice")
    memory = Memory.from_defaults(
        session_id="tiny",
        token_limit=30,
        chat_history_token_ratio=0.5,
        token_flush_size=10,
        memory_blocks=[block],
    )
    engine = SimpleChatEngine.from_defaults(llm=ScriptedLLM(*["Sure."] * 6), memory=memory)
    for fact in (
        "I work at Globex as a data engineer",
        "My manager is Hank",
        "We ship on Thursdays",
    ):
        engine.chat(fact)

    assert "I work at Globex as a data engineer" in _raw(
        sync_client, "Globex data engineer", session_id="tiny"
    )
    llm = ScriptedLLM("Globex.")
    SimpleChatEngine.from_defaults(
        llm=llm, memory=Memory.from_defaults(memory_blocks=[block])
    ).chat("Where do I work?")
    assert "I work at Globex as a data engineer" in llm.prompts[-1]


def test_an_existing_memory_gets_the_block_and_no_double_writes(sync_client):
    own = MemHubMemoryBlock(client=sync_client, user_id="alice")
    inner = Memory.from_defaults(memory_blocks=[own])
    memory = MemHubMemory.from_defaults(client=sync_client, user_id="alice", memory=inner)
    assert inner.memory_blocks == [own] and own.accept_short_term_memory is False

    fresh = MemHubMemory.from_defaults(
        client=sync_client, user_id="alice", memory=Memory.from_defaults()
    )
    assert [type(b) for b in fresh.memory.memory_blocks] == [MemHubMemoryBlock]
    with pytest.raises(TypeError, match="not both"):
        MemHubMemory.from_defaults(
            client=sync_client, user_id="alice", memory=inner, token_limit=10
        )
    assert memory.end_session() is None


def test_constructed_without_memory_defaults_it_like_from_defaults(sync_client):
    """``MemHubMemory(client=..., user_id=...)``: the inner memory is made, with the
    memhub block.
    """
    sync_client.add("My favorite color is teal.", user_id="dora", session_id="old")
    memory = MemHubMemory(client=sync_client, user_id="dora", session_id="s1")
    assert [type(b) for b in memory.memory.memory_blocks] == [MemHubMemoryBlock]
    llm = ScriptedLLM("Teal, as you told me.")
    SimpleChatEngine.from_defaults(llm=llm, memory=memory).chat("What is my favorite color?")
    assert "teal" in llm.prompts[-1]
    assert "What is my favorite color?" in _raw(sync_client, "favorite color", "dora")
