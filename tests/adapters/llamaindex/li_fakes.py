"""Scripted LlamaIndex models that record the prompt of every call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, CompletionResponse
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.llms import MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockFunctionCallingLLM


class ScriptedLLM(MockLLM):
    """``MockLLM`` that answers with scripted replies instead of echoing, and keeps each prompt."""

    _replies: list[str] = PrivateAttr(default_factory=list)
    _prompts: list[str] = PrivateAttr(default_factory=list)

    def __init__(self, *replies: str) -> None:
        super().__init__()
        self._replies = list(replies)

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self._prompts.append(prompt)
        return CompletionResponse(text=self._replies.pop(0) if self._replies else "OK.")


def scripted_function_llm(
    *replies: ChatMessage,
) -> tuple[MockFunctionCallingLLM, list[list[ChatMessage]]]:
    """A ``MockFunctionCallingLLM`` answering ``replies`` in order, and the list its prompts land
    in.
    """
    prompts: list[list[ChatMessage]] = []
    queue = list(replies)

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        prompts.append([m.model_copy(deep=True) for m in messages])
        return queue.pop(0) if queue else ChatMessage(role="assistant", content="OK.")

    return MockFunctionCallingLLM(response_generator=respond), prompts


def text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(f"{m.role.value}: {m.content or ''}" for m in messages)
