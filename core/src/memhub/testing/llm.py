"""``ScriptedLLM``: a deterministic LLM for tests, replaying canned JSON and counting calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ScriptedLLM:
    """Answers ``complete_json`` from a script.

    Args:
        script: a list of JSON objects returned in order, or a function
            ``(system, user) -> dict`` deciding per prompt.

    ``calls`` counts requests and ``prompts`` keeps them, so tests can assert how
    many model calls a write cost and what the model was shown.
    """

    def __init__(self, script: list[dict[str, Any]] | Callable[[str, str], dict[str, Any]]) -> None:
        self._script = script
        self.calls = 0
        self.prompts: list[tuple[str, str]] = []

    async def complete_json(self, system: str, user: str) -> dict[str, Any]:
        self.calls += 1
        self.prompts.append((system, user))
        if callable(self._script):
            return self._script(system, user)
        if not self._script:
            raise AssertionError("ScriptedLLM ran out of scripted answers")
        return self._script.pop(0)
