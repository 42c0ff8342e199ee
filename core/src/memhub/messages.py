"""Turning what callers pass to ``add`` into clean, redacted turns (pure functions)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memhub.errors import InvalidInputError
from memhub.redact import redact, redact_value
from memhub.text import refuse_nul

MAX_MESSAGES = 2000
MAX_MESSAGE_CHARS = 100_000

M = TypeVar("M")


@dataclass
class Turn:
    """One user or assistant message, redacted, with what the caller said about it."""

    role: str
    content: str
    message_id: str | None = None
    occurred_at: str | None = None
    name: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def _field(message: Any, name: str) -> Any:
    if isinstance(message, dict):
        return message.get(name)
    return getattr(message, name, None)


def _part_text(part: Any) -> str:
    """A content part's text: a string, or ``{"text": "..."}`` (other parts, e.g. images, have
    none).
    """
    if isinstance(part, str):
        return part
    text = part.get("text") if isinstance(part, dict) else None
    if not isinstance(part, dict) or not isinstance(text, str | None):
        raise InvalidInputError(
            f'a content part must be a string or {{"text": "..."}}, not {part!r:.80}'
        )
    return text or ""


def _text(content: Any) -> str:
    """OpenAI content may be a string or a list of parts; keep the text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text for part in content if (text := _part_text(part)))
    raise InvalidInputError(
        f"message content must be a string or a list of parts, not {type(content).__name__}"
    )


def normalize_messages(messages: Any) -> tuple[list[Turn], bool]:
    """Redacted user/assistant turns, and whether the input carried tool traces.

    System messages are dropped (the host's prompt is not the user's memory) and
    tool results are never kept: they are neither stored nor embedded. Tool-call
    arguments are redacted like text (``PGPASSWORD=… psql`` keeps no password).
    """
    if not isinstance(messages, list | tuple) or not messages:
        raise InvalidInputError("messages must be a non-empty list of {role, content} objects")
    if len(messages) > MAX_MESSAGES:
        raise InvalidInputError(f"at most {MAX_MESSAGES} messages per add")
    turns: list[Turn] = []
    has_tools = False
    for i, message in enumerate(messages):
        role = _field(message, "role")
        role = getattr(role, "value", role)
        if role not in ("system", "developer", "user", "assistant", "tool", "function"):
            raise InvalidInputError(
                f"message {i}: role must be user, assistant, system or tool, not {role!r}"
            )
        calls = _field(message, "tool_calls") or []
        if role in ("tool", "function") or calls:
            has_tools = True
        if role in ("system", "developer", "tool", "function"):
            continue
        text = _text(_field(message, "content"))
        if len(text) > MAX_MESSAGE_CHARS:
            raise InvalidInputError(
                f"message {i} is {len(text)} characters; the limit is {MAX_MESSAGE_CHARS}"
            )
        refuse_nul(text, f"message {i}")
        when = (
            _field(message, "occurred_at")
            or _field(message, "timestamp")
            or _field(message, "created_at")
        )
        msg_id = _field(message, "id")
        name = _field(message, "name")  # OpenAI's participant name: who said it in a group chat
        turns.append(
            Turn(
                role=role,
                content=redact(text).text.strip(),
                message_id=str(msg_id) if msg_id else None,
                occurred_at=str(when) if when else None,
                tool_calls=redact_value(list(calls)),
                name=redact(str(name)).text.strip() or None if name else None,
            )
        )
    return turns, has_tools


def is_turn(message: Any) -> bool:
    """Whether ``add`` keeps ``message`` as a turn: a user or assistant message with text.

    Only turns are embedded and read by the extractor; system and tool messages are not.
    """
    if _role(message) not in ("user", "assistant"):
        return False
    try:
        return bool(_text(_field(message, "content")).strip())
    except InvalidInputError:
        return True  # the add itself says what is wrong with it


def too_many_messages(messages: Any, limit: int) -> str | None:
    """Why a server door (REST, the hub, MCP) refuses an add of ``messages``, or ``None``.

    Each turn of an add is embedded whole (up to e5's 512 tokens) and read by the
    extractor, and so is each fact found in it: past ``Settings.max_messages_per_add``
    turns one request would hold the server's shared embedder for seconds to minutes
    (``bench/adversarial_bench.py``). System and tool messages do not count.
    """
    if not isinstance(messages, list | tuple):
        return None
    count = sum(map(is_turn, messages))
    if count <= limit:
        return None
    return (
        f"this add has {count} user and assistant messages; the limit is {limit} per request "
        "(max_messages_per_add). Send the conversation as several adds of at most "
        f"{limit} messages with the same session_id (the Python RemoteClient splits it for "
        "you); load bulk history with `memhub capture` (agent transcripts) or `memhub import`."
    )


def split_messages(messages: Sequence[M], limit: int) -> list[list[M]]:
    """Consecutive parts of ``messages`` with at most ``limit`` turns (``is_turn``) each.

    A part ends before a user message where it can, so a question stays with its
    answer and the tool calls between them; system and tool messages go with the turns
    around them and never make a part of their own.

    Example:
        >>> turns = [{"role": r, "content": c} for r, c in
        ...          [("user", "hi"), ("assistant", "hello"), ("user", "bye"), ("assistant", "ok")]]
        >>> [len(part) for part in split_messages(turns, 3)]
        [2, 2]
    """
    parts: list[list[M]] = []
    current: list[M] = []
    turns = 0
    for message in messages:
        turn = is_turn(message)
        if turn and turns == limit:
            first_turn = next(i for i, m in enumerate(current) if is_turn(m))
            cut = max(
                (i for i, m in enumerate(current) if i > first_turn and _role(m) == "user"),
                default=len(current),
            )
            parts.append(current[:cut])
            current = current[cut:]
            turns = sum(map(is_turn, current))
        current.append(message)
        turns += turn
    return [*parts, current] if current else parts


def _role(message: Any) -> Any:
    role = _field(message, "role")
    return getattr(role, "value", role)
