"""LangChain messages -> what memhub stores and searches with (pure functions)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    BaseMessage,
    HumanMessage,
    SystemMessage,
    convert_to_openai_messages,
)

from memhub.bridge import chat_turns


def to_memhub_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """OpenAI-style dicts of the user and assistant turns, with their LangChain ids
    (see ``memhub.bridge.chat_turns``)."""
    return chat_turns(convert_to_openai_messages(list(messages)), [m.id for m in messages])


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
