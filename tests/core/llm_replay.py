"""Replaying provider HTTP from cassettes, matched on the request body (no network).

Cassettes hold the JSON body memhub sends (the prompts), so a test fails when a prompt
loses what it must contain or a request changes shape. Bodies are compared as JSON,
with memory ids (ULIDs, new on every run) replaced by a placeholder.
``tests/cassettes/build.py`` rebuilds the cassettes offline from scripted replies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import vcr

CASSETTES = Path(__file__).parents[1] / "cassettes"
_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def normalised(body: bytes | str | None) -> Any:
    """The request body as JSON, with every ULID replaced by ``<id>``."""
    if body is None:
        return None
    text = body.decode() if isinstance(body, bytes) else body
    return json.loads(_ULID.sub("<id>", text))


def same_body(r1, r2) -> None:
    assert normalised(r1.body) == normalised(r2.body), (
        "the request body differs from the cassette's"
    )


replay = vcr.VCR(
    cassette_library_dir=str(CASSETTES),
    record_mode="none",
    match_on=["method", "scheme", "host", "path", "json_body"],
    filter_headers=["authorization"],
)
replay.register_matcher("json_body", same_body)
