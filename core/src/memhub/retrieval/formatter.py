"""``format_memories``: search groups -> one prompt block, with Chinese or English headings.

Example:
    >>> res = await client.search("用户偏好", user_id="alice")
    >>> block = format_memories(res.memories.to_dict())
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from memhub._cjk import HAN_CHAR

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


def _line(item: Any) -> str:
    procedure = _get(item, "procedure")
    if procedure:
        task, solution = _get(procedure, "task"), _get(procedure, "solution")
        files = _get(procedure, "files") or []
        suffix = f" ({', '.join(files)})" if files else ""
        return f"- {task} -> {solution}{suffix}"
    when = (_get(item, "occurred_at") or _get(item, "created_at") or "")[:10]
    return f"- {_get(item, 'content')}" + (f" [{when}]" if when else "")


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
    headings = _HEADINGS[language or _language(groups)]
    sections, left = [], max_items
    for name in _ORDER:
        items = list(groups.get(name) or [])[:left]
        if items:
            sections.append(f"## {headings[name]}\n" + "\n".join(_line(i) for i in items))
            left -= len(items)
    return "\n\n".join(sections)
