"""No input makes a regex of redaction, extraction or judging superlinear.

Every compiled pattern of the modules that read user text is collected (module
constants, tables, dataclass rows) and run with ``finditer`` over adversarial
strings: the generic ones the hardening issue names (repeated tokens, capitalised
runs, "Bearer " floods, combining marks, CJK runs, whitespace runs) and, for each
pattern, runs of the literal cue words written in the pattern itself ("把", "from",
"replaced"...), which is what makes a lazy span scan to the end of the text at
every start. A pattern is linear when quadrupling the input at most ~quadruples its
time; the bound below (8x, twice in a row) is loose enough for noise (quadratic
patterns measured 16x and more each time). Times are the thread's CPU time, so a
loaded machine neither hides growth nor makes the check slow.
"""

from __future__ import annotations

import importlib
import re
import time
from dataclasses import fields, is_dataclass

import pytest

MODULES = (
    "memhub.redact",
    "memhub.known_tools",
    "memhub.providers._heuristic_patterns",
    "memhub.providers.heuristic",
    "memhub.providers.remainder",
    "memhub.providers.restated",
    "memhub.providers._talk",
    "memhub.messages",
    "memhub.engine.procedures",
    "memhub.text",
    "memhub.engine.write.write",
    "memhub.engine.hmg",
    "memhub.engine.valid_time",
    "memhub.engine.dates",
    "memhub.retrieval.query",
)

GENERIC = {
    "capitalised run": lambda n: ("Alice Smith Bob Jones " * n)[:n],
    "upper words": lambda n: ("AB CD " * n)[:n],
    "bearer": lambda n: ("Bearer " * n)[:n],
    "combining marks": lambda n: "a" + "\u0301" * (n - 1),
    "cjk run": lambda n: "我" * n,
    "one letter": lambda n: "a" * n,
    "one capital": lambda n: "A" * n,
    "spaces": lambda n: " " * n,
    "newlines": lambda n: "\n" * n,
    "letter space": lambda n: ("A " * n)[:n],
    "digits": lambda n: "1" * n,
    "dotted digits": lambda n: ("1." * n)[:n],
    "digit space": lambda n: ("1 " * n)[:n],
    "mixed token": lambda n: ("Ab1_" * n)[:n],
    "camel": lambda n: ("AbAb" * n)[:n],
    "dashes": lambda n: "-" * n,
    "dotted words": lambda n: ("a." * n)[:n],
    "snake": lambda n: ("a_" * n)[:n],
    "quotes": lambda n: '"' * n,
    "single quotes": lambda n: "'" * n,
    "equals": lambda n: ("a=" * n)[:n],
    "colons": lambda n: ("a: " * n)[:n],
    "url-ish": lambda n: ("http://a:" * n)[:n],
    "at signs": lambda n: ("a:b@" * n)[:n],
    "commas": lambda n: ("a, " * n)[:n],
    "chinese commas": lambda n: ("我，" * n)[:n],
    "pem": lambda n: ("-----BEGIN PRIVATE KEY-----" * n)[:n],
    "sentence": lambda n: ("I moved to Berlin and use Python 3.12 now. " * n)[:n],
    "zh sentence": lambda n: ("我住在上海，把MySQL换成了PostgreSQL。" * n)[:n],
}

_CUE = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]+")


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    found: dict[int, tuple[str, re.Pattern[str]]] = {}

    def walk(obj, name: str, depth: int = 0) -> None:
        if isinstance(obj, re.Pattern):
            found.setdefault(id(obj), (name, obj))
        elif depth > 4:
            return
        elif isinstance(obj, list | tuple):
            for i, x in enumerate(obj):
                walk(x, f"{name}[{i}]", depth + 1)
        elif isinstance(obj, dict):
            for k, x in obj.items():
                walk(x, f"{name}[{k!r}]", depth + 1)
        elif is_dataclass(obj) and not isinstance(obj, type):
            for f in fields(obj):
                walk(getattr(obj, f.name), f"{name}.{f.name}", depth + 1)

    for module in MODULES:
        for key, value in vars(importlib.import_module(module)).items():
            walk(value, f"{module.rsplit('.', 1)[-1]}.{key}")
    return sorted(found.values(), key=lambda item: item[0])


PATTERNS = _patterns()


def _inputs(pattern: re.Pattern[str]):
    yield from GENERIC.items()
    for cue in dict.fromkeys(_CUE.findall(pattern.pattern)):
        yield f"{cue}*", lambda n, c=cue: (c * n)[:n]
        yield f"{cue}+space", lambda n, c=cue: ((c + " ") * n)[:n]
        yield f"{cue}+word", lambda n, c=cue: ((c.capitalize() + " Ab1 ") * n)[:n]


def _cost(pattern: re.Pattern[str], text: str, runs: int = 2) -> float:
    """CPU time of this thread, best of ``runs``: unlike wall time, a loaded machine's
    other processes do not add to it, so noise only rarely looks like growth."""
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()
        for _m in pattern.finditer(text):
            pass
        best = min(best, time.thread_time() - start)
    return best


def superlinear(
    pattern: re.Pattern[str], small: int = 2_000, *, stop_after: int | None = None
) -> list[str]:
    """Inputs on which ``pattern`` grows much faster than the text (the first ``stop_after``).

    Quadratic growth is what is looked for, so the bounds scale with ``small`` squared:
    at 4,000 characters, an input under 4 ms is too fast to matter at 16,000.
    """
    scale = (small / 4_000) ** 2
    slow = []
    for name, make in _inputs(pattern):
        # one run to screen: noise only makes it slower, i.e. looked at more closely
        if _cost(pattern, make(small), runs=1) < 0.004 * scale:
            continue
        t_small = _cost(pattern, make(small))
        t_big = _cost(pattern, make(4 * small))
        if t_big < 0.03 * scale or t_big < 8 * t_small:
            continue
        # Confirm with the next step: one slow measurement is not a trend.
        t_huge = _cost(pattern, make(16 * small))
        if t_huge > 8 * t_big:
            slow.append(
                f"{name}: {t_small * 1000:.1f} ms at {small}, {t_big * 1000:.1f} ms at "
                f"{4 * small}, {t_huge * 1000:.1f} ms at {16 * small}"
            )
            if len(slow) == stop_after:
                break
    return slow


def test_the_collector_sees_every_module():
    modules = {name.split(".", 1)[0] for name, _ in PATTERNS}
    assert {m.rsplit(".", 1)[-1] for m in MODULES} - {"write", "hmg", "messages"} <= modules
    assert len(PATTERNS) > 80


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[n for n, _ in PATTERNS])
def test_pattern_is_linear(name, pattern):
    assert superlinear(pattern) == []


def test_the_check_catches_a_quadratic_pattern():
    # The shape of the old capitalised-run rule: a greedy run that fails at the end.
    quadratic = re.compile(r"(?P<new>[A-Z]\w*(?:\s+[A-Z]\w*)*)\s+replaced")
    assert superlinear(quadratic, small=1_000, stop_after=1)
