"""A fake chat model that records every prompt it receives (the prompt the model saw)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import Field


class RecordingChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that keeps the messages of every call (the prompt the model saw)."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any):
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any):
        return self

    def system_text(self, call: int = -1) -> str:
        first = self.prompts[call][0]
        return first.text if first.type == "system" else ""

    def prompt_text(self, call: int = -1) -> str:
        return "\n".join(m.text for m in self.prompts[call])


def scripted(*replies: AIMessage | str) -> RecordingChatModel:
    messages: Iterator[AIMessage | str] = iter(replies)
    return RecordingChatModel(messages=messages)
