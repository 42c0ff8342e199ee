"""What is on disk: the check behind every "gone after purge" test."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def _data(path: Path) -> bytes:
    """The bytes of ``path`` without its holes: store files are large and mostly sparse."""
    chunks = []
    with path.open("rb") as f:
        fd, end, pos = f.fileno(), os.fstat(f.fileno()).st_size, 0
        while pos < end:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
                stop = os.lseek(fd, start, os.SEEK_HOLE)
            except OSError:  # no data after pos (ENXIO), or no SEEK_DATA here: read it all
                if pos == 0 and not chunks:
                    f.seek(0)
                    return f.read()
                break
            f.seek(start)
            chunks.append(f.read(stop - start))
            pos = stop
    return b"\0".join(chunks)


def files_containing(root: Path, needle: bytes) -> list[str]:
    """Every file under ``root`` holding ``needle`` anywhere in its bytes."""
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in _data(p)]


def files_containing_any(root: Path, needles: Iterable[bytes]) -> dict[bytes, list[str]]:
    """For each needle found under ``root``, the files holding it (each file read once)."""
    contents = {str(p): _data(p) for p in root.rglob("*") if p.is_file()}
    found: dict[bytes, list[str]] = {}
    for needle in needles:
        if hits := [path for path, data in contents.items() if needle in data]:
            found[needle] = hits
    return found
