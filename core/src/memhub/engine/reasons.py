"""Reasons in the audit log once the memory they are about is sealed or tombstoned.

The audit log never holds memory content, but it holds the reasons callers give to
``correct`` and ``govern``, and a reason may quote the memory ("the password is
hunter2"). Sealing or tombstoning a memory therefore erases the reasons of its earlier
steps (and of the steps on other versions that name it: a replace is recorded on
both), as ``forget_user`` does: the steps themselves (action, from, to, who, when)
stay. After ``purge`` the old text is gone from the files too.

The governing step keeps its own reason, since history must say why a memory was
sealed (spec: every step's reason), but not the words it shares with the memory: each
word of four or more letters or digits that occurs in its text (content, metadata,
procedure) is replaced by ``QUOTE``. A reason that describes ("含明文数据库密码") stays
readable; one that quotes ("the password is hunter2") loses the quote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from memhub.engine.payload import Memory

QUOTE = "[…]"
# \w also matches CJK: a run of it is one word, so a description in Chinese stays whole.
_WORD = re.compile(r"\w{4,}")


def erased(state: str) -> str:
    """What an erased reason reads in ``history()`` once its memory is ``state``."""
    return f"[reason erased: {state}]"


def without_quotes(reason: str, texts: Iterable[str]) -> str:
    """``reason`` with every word of it that occurs in one of ``texts`` replaced by ``QUOTE``."""
    quoted = "\n".join(texts).casefold()
    return _WORD.sub(lambda m: QUOTE if m.group().casefold() in quoted else m.group(), reason)


def text_of(payload: Memory) -> str:
    """All the text a memory holds that a reason could quote: content, metadata, procedure."""
    held = {k: payload.get(k) for k in ("content", "metadata", "procedure")}
    return json.dumps(held, ensure_ascii=False, default=str)
