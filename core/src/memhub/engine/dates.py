"""The calendar dates a question names ("on 9 November, 2022", "in May 2023", "2023年5月"),
as spans of days that conversation turns can be matched against.

A question that names a day or a month ("What dish did Nate make on 9 November, 2022?")
is about what was said then; the words of the date hardly help a search, since every turn
of that year carries them in its dated index text (``conversation.dated_text``). Turns whose
``occurred_at`` falls in the span (one day either side: a session's clock and the asker's
may not agree on the day) are a second ranking of ``search_conversation``, taken from its
first 100 turns (on a long multi-session benchmark, the first 100, 200 or 500 gave the same
recall: the dated index text already draws the turns of a named month near the top).

Explicit dates are read first. Without one, a relative date ("last May", "我去年在哪工作",
"yesterday") is read against the time the question is asked about (``now``: the read's
``as_of``, else the present) by ``valid_time.resolve``, as a span of its precision. A
month without its year ("in June") is still left out: it names a month of every year.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from memhub.engine.valid_time import EN_MONTHS as _MONTHS
from memhub.engine.valid_time import resolve

_MONTH = "|".join(_MONTHS)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# One day either side of a span.
SLACK: Final = timedelta(days=1)


@dataclass(frozen=True)
class Span:
    """Days from ``first`` to ``last``, both included."""

    first: date
    last: date


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()) + 1


def _day(y: str, m: int, d: str) -> tuple[date, date]:
    day = date(int(y), m, int(d))
    return day, day


def _whole_month(y: str, m: int) -> tuple[date, date]:
    first = date(int(y), m, 1)
    following = date(first.year + (m == 12), m % 12 + 1, 1)
    return first, following - timedelta(days=1)


def _whole_year(y: str) -> tuple[date, date]:
    return date(int(y), 1, 1), date(int(y), 12, 31)


# How a match reads as the first and last day it names.
_Read = Callable[[re.Match[str]], tuple[date, date]]
# Most specific first: the words of a day are not read again as its month or year.
_PATTERNS: Final[tuple[tuple[re.Pattern[str], _Read], ...]] = (
    (
        re.compile(rf"\b{_DAY}\s+({_MONTH}),?\s*{_YEAR}\b", re.I),
        lambda m: _day(m[3], _month(m[2]), m[1]),
    ),
    (
        re.compile(rf"\b({_MONTH})\s+{_DAY},?\s*{_YEAR}\b", re.I),
        lambda m: _day(m[3], _month(m[1]), m[2]),
    ),
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), lambda m: _day(m[1], int(m[2]), m[3])),
    (
        re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"),
        lambda m: _day(m[1], int(m[2]), m[3]),
    ),
    (re.compile(rf"\b({_MONTH}),?\s+{_YEAR}\b", re.I), lambda m: _whole_month(m[2], _month(m[1]))),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月"), lambda m: _whole_month(m[1], int(m[2]))),
    (re.compile(rf"\b(?:in|of|during|throughout)\s+{_YEAR}\b", re.I), lambda m: _whole_year(m[1])),
    (re.compile(r"(\d{4})\s*年"), lambda m: _whole_year(m[1])),
)


def asked_dates(question: str, now: datetime | None = None) -> list[Span]:
    """The spans of days ``question`` names explicitly, each widened by ``SLACK``.

    Example:
        >>> asked_dates("What did Nate cook on 9 November, 2022?")
        [Span(first=datetime.date(2022, 11, 8), last=datetime.date(2022, 11, 10))]
        >>> [s.first.isoformat() for s in asked_dates("我2023年5月做了什么？")]
        ['2023-04-30']
    """
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []
    for pattern, read in _PATTERNS:
        for m in pattern.finditer(question):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            try:
                first, last = read(m)
            except ValueError:  # "31 February, 2023": no day, and not its month either
                continue
            spans.append(Span(first - SLACK, last + SLACK))
    if not spans and (named := resolve(question, now or datetime.now(UTC), bare_months=False)):
        last = max(named.end.date() - timedelta(days=1), named.start.date())
        spans.append(Span(named.start.date() - SLACK, last + SLACK))
    return spans


def said_within(turn: Mapping[str, Any], spans: list[Span]) -> bool:
    """Whether a raw turn was said on a day of ``spans``: by its ``occurred_at``, or by its
    ``created_at`` when it was written without a time of its own (a live chat is stored as
    it happens). A time that is not ISO 8601 matches no span."""
    m = _ISO_DAY.match((turn.get("occurred_at") or turn.get("created_at") or "").lstrip())
    if not m:
        return False
    try:
        day = date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return False
    return any(span.first <= day <= span.last for span in spans)
