"""An exclusive, advisory lock on a storage directory, naming its holder.

Qdrant Edge is single-process: a second process opening the same shard fails
deep inside the WAL with ``WouldBlock``. We take our own lock first so the
second process gets a clear error that says who holds the store and what to do.
The lock is released by the kernel when the holder exits, even on SIGKILL.

The lock file names the holder by process id and program name only: command-line
arguments may carry secrets (``--api-key …``), and other processes show the holder.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

from memhub.errors import StoreLockedError

LOCK_FILE = ".lock"


def _program() -> str:
    """The program's name without its arguments or its directory (``memhub``, ``pytest``)."""
    return os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else sys.executable)[:64]


class DirLock:
    def __init__(self, directory: Path) -> None:
        self.path = directory / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreLockedError(self._held_message()) from None
        holder = {"pid": os.getpid(), "program": _program()}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(holder).encode())
        self._fd = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def _held_message(self) -> str:
        try:
            holder = json.loads(self.path.read_text() or "{}")
        except (OSError, ValueError):
            holder = {}
        who = f"process {holder.get('pid', '?')}"
        program = holder.get("program")  # an older lock file's "cmd" is never shown
        if isinstance(program, str) and program:
            who += f" ({program[:64]})"
        return (
            f"the memory store at {self.path.parent} is in use by {who}. "
            "Qdrant Edge allows one process per store: close that process, or run "
            "`memhub serve` there and connect through the local hub."
        )
