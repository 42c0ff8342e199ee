"""Files for export and import, shared by the local and the remote client (no store access here)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from memhub.errors import InvalidInputError


class TextSink(Protocol):
    """Where an export can go besides a path: anything with ``write(text)`` (an open text
    file, ``sys.stdout``, an ``io.StringIO``, the server's response queue)."""

    def write(self, text: str, /) -> object: ...


Source = str | Path | Iterable[str]
Dest = str | Path | TextSink
FORMATS = ("memhub", "mem0")


@contextlib.contextmanager
def writer(dest: Dest) -> Iterator[Callable[[str], Any]]:
    """A ``write(text)`` into ``dest``: a path (written whole or not at all: a ``.part`` file,
    renamed at the end and removed if the export fails or is interrupted) or an open text stream."""
    if isinstance(dest, str | Path):
        path = Path(dest)
        part = path.with_name(path.name + ".part")
        try:
            with part.open("w", encoding="utf-8") as out:
                yield out.write
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        part.replace(path)
    else:
        yield dest.write


class Lines:
    """The ``(line number, text)`` pairs of an import source, readable more than once."""

    def __init__(self, path: Path | None = None, kept: list[str] | None = None) -> None:
        self.path, self.kept = path, kept

    def __call__(self) -> Iterator[tuple[int, str]]:
        if self.path is None:
            yield from enumerate(self.kept or [], start=1)
            return
        with self.path.open(encoding="utf-8", errors="replace") as lines:
            yield from enumerate((line.rstrip("\n") for line in lines), start=1)

    def count(self) -> int:
        """How many lines (the progress total), without decoding them."""
        if self.path is None:
            return len(self.kept or [])
        with self.path.open("rb") as raw:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: raw.read(1 << 20), b""))


def lines_of(
    source: Source,
    from_: str = "memhub",
    *,
    include_deleted: bool = False,
    app_id: str | None = None,
) -> Lines:
    """The lines of ``source``; given as an iterable, they are kept in memory.

    ``from_="mem0"``: ``source`` is a mem0 store folder, converted on the fly
    (``memhub.engine.transfer.mem0``), its memories filed under ``app_id``.
    """
    if from_ not in FORMATS:
        raise InvalidInputError(f"cannot import from {from_!r}; known: {', '.join(FORMATS)}")
    if from_ == "mem0":
        from memhub.engine.transfer.mem0 import export_lines

        if not isinstance(source, str | Path):
            raise InvalidInputError("a mem0 store is read from its folder: pass its path")
        return Lines(
            kept=list(export_lines(Path(source), include_deleted=include_deleted, app_id=app_id))
        )
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise InvalidInputError(f"no export file at {path}")
        return Lines(path=path)
    return Lines(kept=[line.rstrip("\n") for line in source])
