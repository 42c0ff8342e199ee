"""What earlier captures consumed: ``<storage_dir>/capture_state.json``.

It maps each session file to how far it was read (bytes and complete lines), how
many messages were added from it, and what is known about the session (id, cwd,
branch, times). A session whose file has not grown is skipped without being read;
a grown one is read from its cursor, so only the new messages are added::

    {"version": 1,
     "sessions": {"/home/me/.claude/projects/-home-me-shop/5f0c….jsonl":
                  {"source": "claude-code", "session_id": "5f0c…", "bytes": 18234,
                   "lines": 16, "messages": 5, "cwd": "/home/me/shop", "branch": "main",
                   "started_at": "…", "last_at": "…", "captured_at": "…"}}}

The state is saved after every session, so an interrupted run loses nothing and
adds nothing twice.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memhub.capture._common import Cursor, SessionInfo
from memhub.errors import InvalidInputError

STATE_FILE = "capture_state.json"
_VERSION = 1


@dataclass
class Entry:
    """One session file's progress."""

    source: str
    cursor: Cursor
    messages: int
    info: SessionInfo = field(default_factory=SessionInfo)
    captured_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "session_id": self.info.session_id,
            "bytes": self.cursor.bytes,
            "lines": self.cursor.lines,
            "messages": self.messages,
            **{k: v for k, v in asdict(self.info).items() if k != "session_id"},
            "captured_at": self.captured_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        info = SessionInfo(**{f.name: data.get(f.name) for f in fields(SessionInfo)})
        return cls(
            source=data["source"],
            cursor=Cursor(int(data["bytes"]), int(data["lines"])),
            messages=int(data.get("messages", 0)),
            info=info,
            captured_at=data.get("captured_at"),
        )


class CaptureState:
    """The capture state file of one store; ``load`` it, ``record`` progress, ``save``."""

    def __init__(self, path: Path, sessions: dict[str, Entry] | None = None) -> None:
        self.path = path
        self.sessions: dict[str, Entry] = sessions or {}

    @classmethod
    def load(cls, storage_dir: str | Path) -> CaptureState:
        """The state kept in ``storage_dir`` (empty when there is none yet).

        A damaged file is refused rather than ignored: starting over would add every
        session a second time.
        """
        path = Path(storage_dir) / STATE_FILE
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            sessions = {key: Entry.from_json(value) for key, value in data["sessions"].items()}
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise InvalidInputError(
                f"{path} is not a readable capture state ({err}); fix it, or move it away to "
                f"capture every session again"
            ) from err
        return cls(path, sessions)

    def get(self, session_file: Path) -> Entry | None:
        return self.sessions.get(_key(session_file))

    def record(self, session_file: Path, entry: Entry) -> None:
        entry.captured_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.sessions[_key(session_file)] = entry

    def save(self) -> None:
        """Write the state atomically (a crash leaves the old file or the new one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "version": _VERSION,
            "sessions": {k: e.to_json() for k, e in sorted(self.sessions.items())},
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


@contextlib.contextmanager
def locked(storage_dir: str | Path) -> Iterator[bool]:
    """Hold the capture state of ``storage_dir``; yields ``False`` when another capture holds it.

    Two captures at once (two agent sessions ending together, both reaching the
    store through the local hub) would otherwise both add the same new messages.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; runs rarely overlap there
        yield True
        return
    folder = Path(storage_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / (STATE_FILE + ".lock"), "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _key(session_file: Path) -> str:
    return str(session_file.resolve())
