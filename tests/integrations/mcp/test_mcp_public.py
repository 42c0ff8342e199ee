"""The public surface of ``memhub_mcp`` (a change here is a change for users)."""

from __future__ import annotations

import memhub_mcp


def test_public_names():
    assert sorted(memhub_mcp.__all__) == [
        "CONTEXT_PROMPT",
        "CONTEXT_URI",
        "TOOL_NAMES",
        "build_server",
    ]
    assert memhub_mcp.TOOL_NAMES == (
        "memorize",
        "recall",
        "correct",
        "govern",
        "handoff",
        "history",
        "stats",
        "add",
        "search",
        "search_conversation",
    )
    assert (memhub_mcp.CONTEXT_PROMPT, memhub_mcp.CONTEXT_URI) == (
        "session_context",
        "memhub://session-context",
    )
