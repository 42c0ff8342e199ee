"""Docs named in the shipped code exist in the repository (a reader follows them)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [ROOT / "core" / "src", *ROOT.glob("adapters/*/src"), *ROOT.glob("integrations/*/src")]
# a path to a markdown file, e.g. "bench/README.md" or "spec/hmg-guide.zh.md"
DOC_PATH = re.compile(r"\b((?:[\w.-]+/)+[\w.-]+\.md)\b")


def test_every_doc_path_in_the_shipped_code_is_in_the_repository():
    named = {
        (path.relative_to(ROOT), doc)
        for src in SHIPPED
        for path in src.rglob("*.py")
        for doc in DOC_PATH.findall(path.read_text(encoding="utf-8"))
    }
    assert named  # the scan finds the references there are (bench/README.md, ...)
    assert [(str(p), doc) for p, doc in sorted(named) if not (ROOT / doc).is_file()] == []
