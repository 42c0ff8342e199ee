"""LangChain messages -> what memhub stores and searches with (pure functions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    BaseMessage,
    HumanMessage,
    SystemMessage,
    convert_to_openai_messages,
)

_KEPT_ROLES = ("user", "assistant")


def to_memhub_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """OpenAI-style dicts of the user and assistant turns, with their LangChain ids.

    System and tool messages are dropped: the host's prompt is not the user's
    memory, and tool output is never stored. Assistant tool calls are kept so
    memhub can recognise a coding session.
    """
    out = []
    for message, converted in zip(
        messages, convert_to_openai_messages(list(messages)), strict=True
    ):
        if converted.get("role") not in _KEPT_ROLES:
            continue
        if message.id:
            converted["id"] = message.id
        out.append(converted)
    return out


def has_text(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    return any(
        isinstance(p, Mapping) and p.get("type") == "text" and p.get("text", "").strip()
        for p in content or []
    )


def latest_user_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the last human message, or ``""``."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text.strip()
    return ""


def append_to_system(system: SystemMessage | None, block: str) -> SystemMessage:
    """The system message with ``block`` appended at its end.

    At the end, so the static part of the prompt stays a stable prefix for the
    provider's prompt cache; only the tail changes from turn to turn.
    """
    if system is None:
        return SystemMessage(content=block)
    if isinstance(system.content, str):
        content: str | list = f"{system.content}\n\n{block}" if system.content else block
    else:
        content = [*system.content, {"type": "text", "text": block}]
    return system.model_copy(update={"content": content})
