"""The CJK scripts as regex character-class ranges: one definition for every module.

Use them inside a class: ``re.compile(f"[{HAN}]")``. Chinese text is told from other
text by ``HAN`` (the heuristics, BM25's segmentation, the language of a block); query
token estimates count kana and hangul too.
"""

from __future__ import annotations

import re

__all__ = ["HAN", "HAN_CHAR", "HANGUL", "KANA"]

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Han ideographs: CJK Unified Ideographs, Extension A and the Compatibility block."""
KANA = "\u3040-\u30ff"
"""Hiragana and katakana."""
HANGUL = "\uac00-\ud7af"
"""Hangul syllables."""

HAN_CHAR = re.compile(f"[{HAN}]")
"""One Han ideograph (``HAN_CHAR.search(text)``: does the text hold Chinese?)."""
