"""The CJK ranges, the record layers and the heuristics' thresholds each have one named
home: a copy elsewhere drifts (three modules once disagreed on what counts as Chinese)."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import get_args

from memhub import _cjk
from memhub.engine import payload, procedures
from memhub.providers import heuristic
from memhub.providers.types import Layer

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    p
    for top in ("core/src", "adapters", "integrations")
    for p in (ROOT / top).rglob("*.py")
    if "/tests/" not in p.as_posix()
]


def test_the_cjk_ranges_are_written_only_in_memhub_cjk():
    spelled = re.compile(r"\\u4e00|\\u3400|\\u3040|\\uac00|\u4e00-")
    copies = [str(p.relative_to(ROOT)) for p in SOURCES if spelled.search(p.read_text())]
    assert copies == ["core/src/memhub/_cjk.py"]
    assert _cjk.HAN_CHAR.search("我住在上海") and not _cjk.HAN_CHAR.search("I live in Lyon")


def test_layer_tuples_are_defined_once():
    defined = re.compile(r"^(CHAT_LAYERS|ITEM_LAYERS|NOT_MEMORIES)\b.*=", re.MULTILINE)
    homes = [str(p.relative_to(ROOT)) for p in SOURCES if defined.search(p.read_text())]
    assert homes == ["core/src/memhub/engine/payload.py"]
    assert get_args(Layer) == payload.CHAT_LAYERS  # what the extractor may propose


def _float_literals(fn: Callable[..., object]) -> list[float]:
    tree = ast.parse(inspect.getsource(fn))
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is float
    ]


def test_the_judges_compare_against_named_thresholds_only():
    assert _float_literals(heuristic._relate) == []
    assert _float_literals(procedures.judge_procedure) == []
    assert 0 < heuristic.SAME_TOPIC < heuristic.RENUMBERED_TOPIC < heuristic.COVERED <= 1
