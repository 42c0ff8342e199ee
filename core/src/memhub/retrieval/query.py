"""Building a search query from a conversation.

An agent about to answer has the conversation so far; what it should look up in
memory is what the *user* has said, not its own replies (which are mostly
acknowledgements and questions back). On MADial-Bench, searching with the user's
turns before the reply beat every other choice in Chinese and English: the last user
turn alone, the last N turns of both speakers, and all turns (bench/README.md).

Example:
    >>> from_messages([
    ...     {"role": "system", "content": "You are helpful."},
    ...     {"role": "user", "content": "I got a perfect score on my math test!"},
    ...     {"role": "assistant", "content": "Wow, congratulations!"},
    ...     {"role": "user", "content": "How should I celebrate?"},
    ... ])
    'I got a perfect score on my math test!\\nHow should I celebrate?'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from memhub._cjk import HAN, HANGUL, KANA
from memhub.errors import InvalidInputError

__all__ = ["approx_tokens", "from_messages"]

# Message types some frameworks use for roles, and roles that never carry the user's own words.
_ALIASES = {"human": "user", "ai": "assistant", "model": "assistant"}
_HAN_OR_KANA = re.compile(f"[{KANA}{HAN}{HANGUL}]")

# multilingual-e5 reads 512 tokens; leave room for the "query: " prefix.
DEFAULT_MAX_TOKENS = 480


def approx_tokens(text: str) -> int:
    """A cheap token estimate for a multilingual encoder: one per CJK character, one per 4 other
    characters.
    """
    cjk = len(_HAN_OR_KANA.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def _field(message: Any, name: str) -> Any:
    return message.get(name) if isinstance(message, dict) else getattr(message, name, None)


def _role(message: Any) -> str | None:
    if isinstance(message, str):
        return "user"
    role = _field(message, "role") or _field(message, "type")
    role = getattr(role, "value", role)
    return _ALIASES.get(role, role) if isinstance(role, str) else None


def _text(message: Any) -> str:
    content = message if isinstance(message, str) else _field(message, "content")
    if isinstance(content, list):  # OpenAI content parts: keep the text ones
        content = "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return content.strip() if isinstance(content, str) else ""


def from_messages(
    messages: Iterable[Any],
    *,
    roles: Sequence[str] = ("user",),
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> str:
    """The search query for the next reply: the ``roles`` turns so far, oldest first, one per line.

    Args:
        messages: OpenAI-style ``{"role", "content"}`` dicts, objects with ``role`` (or
            a message ``type``: ``human``/``ai``) and ``content``, or plain strings (user
            turns). ``content`` may be a list of parts; only text parts are read.
        roles: whose turns make the query (default: the user's).
        max_tokens: budget for the query (the embedder cuts longer input from the end,
            which would drop the most recent turns): the oldest turns are left out first.

    Speaker labels are not added; system and tool messages are never read. When no
    turn of ``roles`` has text, the last turn with text is used.

    Raises:
        InvalidInputError: no message holds any text.
    """
    if max_tokens < 1:
        raise InvalidInputError("max_tokens must be at least 1")
    turns = [(_role(m), _text(m)) for m in messages]
    turns = [(r, t) for r, t in turns if t and r not in ("system", "developer", "tool", "function")]
    if not turns:
        raise InvalidInputError("the messages hold no text to search with")
    picked = [t for r, t in turns if r in roles] or [turns[-1][1]]
    kept: list[str] = []
    used = 0
    for text in reversed(picked):  # newest first, until the budget is spent
        cost = approx_tokens(text) + (1 if kept else 0)
        if kept and used + cost > max_tokens:
            break
        kept.append(text)
        used += cost
    query = "\n".join(reversed(kept))
    while approx_tokens(query) > max_tokens:  # one turn longer than the budget: keep its start
        query = query[: max(1, len(query) * max_tokens // approx_tokens(query) - 1)]
    return query
