"""OpenCode sessions: the JSON files under ``~/.local/share/opencode/storage``.

OpenCode keeps one session in three kinds of files (its documented file storage):

* ``session/<projectID>/<sessionID>.json``: ``Session.Info`` ``{id, projectID,
  directory, title, parentID?, time: {created, updated}}`` (times in epoch
  milliseconds). A session with a ``parentID`` is one OpenCode spawned for a
  sub-agent (the ``task`` tool): not captured.
* ``message/<sessionID>/<messageID>.json``: ``MessageV2.Info``, ``role`` ``user`` or
  ``assistant``, ``time: {created, completed?}``; ids sort by creation.
* ``part/<messageID>/<partID>.json``: a message's content, tagged ``type``:
  ``text {text, synthetic?}``; ``tool {callID, tool, state: {status, input,
  output?}}``; and ``reasoning``, ``step-start``/``step-finish``, ``file``,
  ``snapshot``, ``patch`` which are not conversation. Synthetic text (what OpenCode
  injects, e.g. a file's content for an ``@file``) and tool ``output`` are never read.

This fits the capture driver's cursor as: ``lines`` = messages consumed (in id
order), ``bytes`` = the session's size on disk (its message and part files), so a
session that did not change is not parsed again. An assistant message still being
written (no ``time.completed``) is left for the next capture.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memhub.capture._common import START, Cursor, MessageBuilder, SessionInfo, Transcript, finish

SOURCE = "opencode"


def default_root() -> Path:
    """``$OPENCODE_DATA_DIR/storage``, else ``$XDG_DATA_HOME/opencode/storage``, else
    ``~/.local/share/opencode/storage``."""
    data = os.environ.get("OPENCODE_DATA_DIR")
    if not data:
        xdg = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
        data = str(Path(xdg) / "opencode")
    return Path(data) / "storage"


def unread(root: Path) -> str | None:
    """Why sessions of this OpenCode may be missing: newer builds keep them in SQLite
    (``opencode.db`` beside ``storage``), which is not read; ``None`` when there is none."""
    database = root.parent / "opencode.db"
    if not database.is_file():
        return None
    return (
        f"{database}: this OpenCode keeps its sessions in SQLite, which memhub does not read "
        f"yet; only the sessions in {root} are captured (write others with `memhub add "
        "--messages-file`)"
    )


def discover(root: Path) -> list[Path]:
    """Session files under ``root`` (the ``storage`` folder)."""
    return sorted(p for p in (root / "session").glob("*/*.json") if p.is_file())


def _storage(path: Path) -> Path:
    return path.parents[2]  # storage/session/<projectID>/<sessionID>.json


def _messages(path: Path) -> list[Path]:
    return sorted((_storage(path) / "message" / path.stem).glob("*.json"))


def _parts(storage: Path, message_id: str) -> list[Path]:
    return sorted((storage / "part" / message_id).glob("*.json"))


def size(path: Path) -> int:
    """The session's bytes on disk: its info, message and part files (the cursor's ``bytes``)."""
    storage, total = _storage(path), path.stat().st_size
    for message in _messages(path):
        total += message.stat().st_size
        total += sum(p.stat().st_size for p in _parts(storage, message.stem))
    return total


def appended(path: Path, start: Cursor) -> bool:
    """Whether every message ``start`` consumed is still there (messages are only added)."""
    return len(_messages(path)) >= start.lines


def parse(path: Path, start: Cursor = START, info: SessionInfo | None = None) -> Transcript:
    """The messages of the session ``path`` after ``start``; ``info`` is what earlier reads
    learned.
    """
    info = info or SessionInfo()
    warnings: list[str] = []
    session = _load(path, warnings) or {}
    info.session_id = info.session_id or _str(session.get("id"))
    info.cwd = info.cwd or _str(session.get("directory"))
    info.seen(_iso((session.get("time") or {}).get("created")))
    if session.get("parentID"):
        info.skip = "a sub-agent's session"
    storage, build = _storage(path), MessageBuilder()
    files = _messages(path)
    consumed = start.lines
    for file in files[start.lines :]:
        message = _load(file, warnings)
        if message is None:
            consumed += 1
            continue
        times = message.get("time") or {}
        if message.get("role") == "assistant" and not times.get("completed"):
            break  # still being written: read it whole next time
        at = _iso(times.get("created"))
        info.seen(at)
        _message(build, message, [_load(p, warnings) for p in _parts(storage, file.stem)], at)
        consumed += 1
    end = Cursor(size(path), consumed)
    return Transcript(SOURCE, path, finish(info, path), build.messages, end, warnings)


def _message(
    build: MessageBuilder, message: dict, parts: list[dict | None], at: str | None
) -> None:
    role, key = message.get("role"), _str(message.get("id"))
    texts = [
        p["text"]
        for p in parts
        if p and p.get("type") == "text" and not p.get("synthetic") and _str(p.get("text"))
    ]
    if role == "user":
        build.user("\n\n".join(texts), at)
        return
    if role != "assistant":
        return
    for part in parts:
        if not part:
            continue
        if part.get("type") == "text" and not part.get("synthetic") and _str(part.get("text")):
            build.assistant(part["text"], at, key=key)
        elif part.get("type") == "tool" and _str(part.get("tool")):
            state = part.get("state") or {}
            call_id = _str(part.get("callID")) or _str(part.get("id")) or "call"
            build.tool_call(call_id, part["tool"], state.get("input") or {}, at, key=key)


def _load(path: Path, warnings: list[str]) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        warnings.append(f"{path}: not readable JSON ({err.__class__.__name__}), skipped")
        return None
    if not isinstance(value, dict):
        warnings.append(f"{path}: not a JSON object, skipped")
        return None
    return value


def _iso(millis: Any) -> str | None:
    if not isinstance(millis, int | float):
        return None
    return datetime.fromtimestamp(millis / 1000, UTC).isoformat().replace("+00:00", "Z")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
