"""LlamaIndex ``ChatMessage``s -> what memhub stores and searches with (pure functions)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock

_ROLES = {
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.CHATBOT: "assistant",
    MessageRole.MODEL: "assistant",
}


def text_of(message: ChatMessage) -> str:
    return "\n".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()


def _tool_calls(message: ChatMessage) -> list[dict[str, Any]]:
    calls = []
    for block in message.blocks:
        if isinstance(block, ToolCallBlock):
            args = (
                block.tool_kwargs
                if isinstance(block.tool_kwargs, str)
                else json.dumps(block.tool_kwargs)
            )
            calls.append(
                {
                    "id": block.tool_call_id,
                    "type": "function",
                    "function": {"name": block.tool_name, "arguments": args},
                }
            )
    return calls


def to_memhub_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI-style dicts of the user and assistant turns.

    System, developer and tool messages are dropped (the host's prompt is not the
    user's memory; tool output is never stored). Assistant tool calls are kept so
    memhub can recognise a coding session; turns with neither text nor calls go.
    """
    out = []
    for message in messages:
        role = _ROLES.get(message.role)
        if role is None:
            continue
        converted: dict[str, Any] = {"role": role, "content": text_of(message)}
        calls = _tool_calls(message) if role == "assistant" else []
        if calls:
            converted["tool_calls"] = calls
        if converted["content"] or calls:
            out.append(converted)
    return out


def latest_user_text(messages: Sequence[ChatMessage] | None) -> str:
    for message in reversed(messages or []):
        if message.role == MessageRole.USER:
            return text_of(message)
    return ""


def is_answer(message: ChatMessage) -> bool:
    """An assistant message with text and no tool calls: the end of a turn."""
    return (
        _ROLES.get(message.role) == "assistant"
        and bool(text_of(message))
        and not _tool_calls(message)
    )
