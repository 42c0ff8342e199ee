"""The core names no agent framework: adapters register what they keep
(``memhub.records.register_collection``) and the core walks what is registered."""

from __future__ import annotations

import re
from pathlib import Path

import memhub

FRAMEWORKS = re.compile(r"langgraph|langchain|llama_?index|agentica|checkpoint", re.IGNORECASE)


def test_no_module_of_the_core_names_a_framework():
    root = Path(memhub.__file__).parent
    named = [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FRAMEWORKS.search(line)
    ]
    assert named == []
