"""The public surface of memhub-agentica."""

from __future__ import annotations

import memhub_agentica


def test_public_surface_is_pinned():
    assert sorted(memhub_agentica.__all__) == ["MemHubAgentHooks", "MemHubHooks"]
    for name in memhub_agentica.__all__:
        assert getattr(memhub_agentica, name).__doc__
