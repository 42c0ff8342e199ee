"""Test helpers: the memhub backends to run on, and a scripted fake chat model that records its
prompts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import Field

BACKENDS = ("edge", "qdrant-local")
"""memhub's two store backends: Qdrant Edge in a temp dir, qdrant-client's ``:memory:`` mode."""


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
