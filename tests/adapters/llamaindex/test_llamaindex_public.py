"""The public surface of memhub-llamaindex."""

from __future__ import annotations

import memhub_llamaindex


def test_public_surface_is_pinned():
    assert sorted(memhub_llamaindex.__all__) == ["MemHubMemory", "MemHubMemoryBlock"]
    for name in memhub_llamaindex.__all__:
        assert getattr(memhub_llamaindex, name).__doc__
