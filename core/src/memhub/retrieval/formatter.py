"""``format_memories``: search groups -> one prompt block, with Chinese or English headings.

Each memory is dated with its valid time (when it held, "2026-08" for "last month"), not
the time it was written. Memories about one subject (the same attribute slot, or the same
words up to a short differing value: "My daughter is 5" / "My daughter is 6 now") are shown
newest first, and the older ones are marked: a change the write judge missed never reaches
the model as two equal lines.

Example:
    >>> res = await client.search("用户偏好", user_id="alice")
    >>> block = format_memories(res.memories.to_dict())
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from memhub._cjk import HAN_CHAR
from memhub.engine.valid_time import shown_date
from memhub.providers.slots import slot_keys

_HEADINGS = {
    "zh": {
        "profile": "用户画像",
        "proactive": "计划与待办",
        "normal": "相关记忆",
        "procedures": "工程经验",
        "derived": "归纳规律",
    },
    "en": {
        "profile": "About the user",
        "proactive": "Plans and reminders",
        "normal": "Relevant memories",
        "procedures": "Engineering experience",
        "derived": "Observed patterns",
    },
}
_ORDER = ("profile", "proactive", "normal", "procedures", "derived")
_OLDER = {
    "zh": "（较早：同一件事有较新的一条，可能已取代它）",
    "en": "(older: a newer line on the same subject may replace it)",
}
_WORD = re.compile(r"\w+")
# "My daughter is 5" / "My daughter is 6 now": the same words, then a short value
_SAME_WORDS, _VALUE_WORDS = 2, 3
_SAME_CHARS, _VALUE_CHARS = 3, 6
_LATIN_WORD = re.compile(r"[A-Za-z]+")


def _language(groups: Mapping[str, Sequence[Any]]) -> str:
    """Chinese when the memories hold more Han characters than English words.

    A Chinese developer's memories name English tools ("我们后端用 Go + PostgreSQL 16"):
    counted by characters they look English, counted against words they are Chinese.
    """
    text = " ".join(str(_get(m, "content")) for items in groups.values() for m in items or [])
    return "zh" if len(HAN_CHAR.findall(text)) > len(_LATIN_WORD.findall(text)) else "en"


def _get(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)


def _line(item: Any, language: str, older: str = "") -> str:
    procedure = _get(item, "procedure")
    if procedure:
        task, solution = _get(procedure, "task"), _get(procedure, "solution")
        files = _get(procedure, "files") or []
        suffix = f" ({', '.join(files)})" if files else ""
        return f"- {task} -> {solution}{suffix}"
    start = _start(item)
    when = shown_date(start, _get(item, "valid_precision"), language) if start else ""
    return (
        f"- {_get(item, 'content')}"
        + (f" [{when}]" if when else "")
        + (f" {older}" if older else "")
    )


def _start(item: Any) -> str | None:
    """When the memory began to hold (its valid time; said or written, for one without)."""
    return _get(item, "valid_from") or _get(item, "occurred_at") or _get(item, "created_at")


def _newer_first(item: Any) -> tuple[str, str]:
    return str(_start(item) or ""), str(_get(item, "created_at") or "")


def _same_subject(a: str, b: str, slots_a: set[str], slots_b: set[str]) -> bool:
    """Whether two memories say one thing about one subject with different values: the same
    slot (``slots_a``, ``slots_b``), or the same opening words followed by a short value
    each."""
    if slots_a & slots_b:
        return True
    if HAN_CHAR.search(a) and HAN_CHAR.search(b):
        common = len(_prefix(a, b))
        return common >= _SAME_CHARS and max(len(a), len(b)) - common <= _VALUE_CHARS
    wa, wb = _WORD.findall(a.lower()), _WORD.findall(b.lower())
    common = len(_prefix(wa, wb))
    return common >= _SAME_WORDS and max(len(wa), len(wb)) - common <= _VALUE_WORDS and wa != wb


def _prefix(a: Sequence[Any], b: Sequence[Any]) -> Sequence[Any]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _subjects(items: list[Any], typed: dict[str, set[str]]) -> list[int]:
    """For each memory, the index of the first memory of its subject (itself when none
    before it shares its subject). ``typed``: the slots of each text, filled as met (the
    slot rules over every pair, again per group, cost a 20-line block 32 ms)."""
    texts = [str(_get(i, "content") or "") for i in items]
    for t in texts:
        if t not in typed:
            typed[t] = set(slot_keys(t))
    slots = [typed[t] for t in texts]
    first = list(range(len(items)))
    for j in range(len(items)):
        for i in range(j):
            if first[i] == i and _same_subject(texts[i], texts[j], slots[i], slots[j]):
                first[j] = i
                break
    return first


def _ordered(groups: Mapping[str, Sequence[Any]], typed: dict[str, set[str]]) -> dict[int, bool]:
    """id(item) -> whether a newer memory on its subject is shown too (chat groups only)."""
    chat = [m for name in ("profile", "proactive", "normal") for m in groups.get(name) or []]
    first = _subjects(chat, typed)
    older: dict[int, bool] = {}
    for root in set(first):
        members = [chat[k] for k, f in enumerate(first) if f == root]
        newest = max(members, key=_newer_first)
        older.update({id(m): m is not newest for m in members})
    return older


def format_memories(
    groups: Mapping[str, Sequence[Any]] | None, *, language: str | None = None, max_items: int = 20
) -> str:
    """Render ``SearchResult.memories.to_dict()`` as a prompt block; ``""`` when there is nothing.

    Args:
        groups: group name -> items (dicts or ``MemoryItem``s).
        language: ``"zh"`` or ``"en"`` headings; guessed from the content when omitted.
        max_items: cap over all groups, in group order.
    """
    if not groups:
        return ""
    language = language or _language(groups)
    headings = _HEADINGS[language]
    typed: dict[str, set[str]] = {}
    older = _ordered(groups, typed)
    sections, left = [], max_items
    for name in _ORDER:
        items = list(groups.get(name) or [])[:left]
        if items:
            items = _topic_newest_first(items, typed)
            lines = [
                _line(i, language, _OLDER[language] if older.get(id(i)) else "") for i in items
            ]
            sections.append(f"## {headings[name]}\n" + "\n".join(lines))
            left -= len(items)
    return "\n\n".join(sections)


def _topic_newest_first(items: list[Any], typed: dict[str, set[str]]) -> list[Any]:
    """``items`` in their order, but the memories of one subject together, newest first, where
    the first of them stood."""
    first = _subjects(items, typed)
    out: list[Any] = []
    for root in dict.fromkeys(first):
        members = [items[k] for k, f in enumerate(first) if f == root]
        out += sorted(members, key=_newer_first, reverse=True)
    return out
