"""Test helpers: the memhub backends to run on, and a scripted fake chat model that records its
prompts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from pydantic import Field

from memhub_langgraph import memory_add_node, memory_search_node

BACKENDS = ("edge", "qdrant-local")
"""memhub's two store backends: Qdrant Edge in a temp dir, qdrant-client's ``:memory:`` mode."""

T = TypeVar("T")


def run_apart(coro: Coroutine[Any, Any, T]) -> T:
    """``coro``'s result, run on a loop of its own: from sync test code and from inside an
    async test alike (a memhub client answers callers on any loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


class RecordingChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that keeps the messages of every call."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any):
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any):
        return self

    def prompt_text(self, call: int = -1) -> str:
        return "\n".join(m.text for m in self.prompts[call])


def scripted(*replies: AIMessage | str) -> RecordingChatModel:
    messages: Iterator[AIMessage | str] = iter(replies)
    return RecordingChatModel(messages=messages)


def tool_call(name: str, call_id: str = "call-1", **args: Any) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


def memory_graph(client: Any, model: RecordingChatModel, checkpointer: Any = None) -> Any:
    """recall -> model -> remember: the graph the adapter's stories run, compiled; the model
    is shown the memories after a fixed system prompt."""

    class State(MessagesState):
        memories: str

    def call_model(state: State) -> dict:
        system = SystemMessage("You are a helpful assistant.\n\n" + state["memories"])
        return {"messages": [model.invoke([system, *state["messages"]])]}

    builder = StateGraph(State)
    builder.add_node("recall", memory_search_node(client))
    builder.add_node("model", call_model)
    builder.add_node("remember", memory_add_node(client))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", "remember")
    builder.add_edge("remember", END)
    return builder.compile(checkpointer=checkpointer)
