"""Progress of long work (export, import, capture, purge, bulk loads).

The engine reports to a :class:`Progress`; the base class reports nothing, so the
SDK is silent unless the caller passes one. :func:`bar` is what the CLI passes: a
tqdm bar with count, rate and ETA on a terminal's stderr, and nothing at all when
stderr is not a terminal or the user asked for quiet.

Example:
    >>> await client.import_("memories.jsonl", progress=bar("import"))
"""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["Progress", "TqdmProgress", "bar"]


class Progress:
    """Receives the progress of one long operation; every method does nothing here.

    Subclass it to show progress your own way. ``start`` may be called again for a
    new phase (an import that re-embeds starts an ``embed`` phase after reading).
    """

    def start(self, label: str, total: int | None = None) -> None:
        """A phase begins: ``total`` units are expected (``None``: not known)."""

    def advance(self, n: int = 1) -> None:
        """``n`` more units are done."""

    def note(self, message: str) -> None:
        """Something the user should read (printed above the bar)."""

    def close(self) -> None:
        """The operation ended (done, failed or interrupted)."""


class TqdmProgress(Progress):
    """A tqdm bar on ``stream`` (count, rate, ETA); notes are printed above it."""

    def __init__(self, stream: TextIO, unit: str = " mem") -> None:
        self.stream, self.unit = stream, unit
        self._bar = None

    def start(self, label: str, total: int | None = None) -> None:
        from tqdm import tqdm

        self.close()
        self._bar = tqdm(
            total=total,
            desc=label,
            unit=self.unit,
            file=self.stream,
            dynamic_ncols=True,
            mininterval=0.2,
            unit_scale=total is None or total >= 10_000,
        )

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def note(self, message: str) -> None:
        if self._bar is not None:
            self._bar.write(f"memhub: {message}", file=self.stream)
        else:
            print(f"memhub: {message}", file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            bar_, self._bar = self._bar, None
            bar_.close()


class _NotesOnly(Progress):
    """No bar (not a terminal, or quiet), but notes still reach stderr unless quiet."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream

    def note(self, message: str) -> None:
        if self.stream is not None:
            print(f"memhub: {message}", file=self.stream, flush=True)


def bar(quiet: bool = False, stream: TextIO | None = None, unit: str = " mem") -> Progress:
    """The CLI's progress: a bar on a terminal's stderr; notes only elsewhere; nothing if
    ``quiet``.
    """
    stream = stream or sys.stderr
    if quiet:
        return _NotesOnly(None)
    if not stream.isatty():
        return _NotesOnly(stream)
    return TqdmProgress(stream, unit)
