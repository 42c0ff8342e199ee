"""What is on disk: the check behind every "gone after purge" test."""

from __future__ import annotations

from pathlib import Path


def files_containing(root: Path, needle: bytes) -> list[str]:
    """Every file under ``root`` holding ``needle`` anywhere in its bytes."""
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]
