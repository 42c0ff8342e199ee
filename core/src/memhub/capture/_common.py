"""What the transcript parsers share: reading JSONL from a cursor, and building messages.

A parser reads a session file from a :class:`Cursor` (bytes and lines already
consumed), so a grown session is read from where the last capture stopped. It
turns records into OpenAI-style messages with :class:`MessageBuilder`: user text,
assistant text, and assistant ``tool_calls`` (name and arguments). Tool results
are never read; no ``role="tool"`` message is emitted (see ``memhub.capture``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from memhub.messages import MAX_MESSAGE_CHARS
from memhub.scope import git_scope

MAX_ARGUMENT_CHARS = 2000
"""A string inside tool-call arguments longer than this (a whole file given to a
write tool, say) is cut: paths and options survive, bulk content does not."""


@dataclass(frozen=True)
class Cursor:
    """How much of a session file has been consumed: complete lines only."""

    bytes: int = 0
    lines: int = 0


START = Cursor()
"""The beginning of a file."""


@dataclass
class Record:
    line: int  # 1-based
    data: dict[str, Any]


@dataclass
class SessionInfo:
    """What is known about a session; kept in the capture state between runs."""

    session_id: str | None = None
    cwd: str | None = None
    branch: str | None = None
    started_at: str | None = None
    last_at: str | None = None
    skip: str | None = None  # why the whole session is not captured (e.g. a sub-agent's)

    def seen(self, timestamp: Any) -> None:
        if isinstance(timestamp, str) and timestamp:
            self.started_at = self.started_at or timestamp
            self.last_at = timestamp


@dataclass
class Transcript:
    """One session file read from a cursor: its metadata and the new messages."""

    source: str
    path: Path
    info: SessionInfo
    messages: list[dict[str, Any]]
    end: Cursor
    warnings: list[str] = field(default_factory=list)


class Parser(Protocol):
    """What ``capture`` reads a coding agent's sessions with: a module per agent
    (``claude_code``, ``codex``, ``opencode``). Agents writing one JSONL file per session
    take ``size`` and ``appended`` from this module."""

    SOURCE: str

    def default_root(self) -> Path: ...

    def discover(self, root: Path) -> list[Path]: ...

    def size(self, path: Path) -> int: ...

    def appended(self, path: Path, start: Cursor) -> bool: ...

    def parse(
        self, path: Path, start: Cursor = ..., info: SessionInfo | None = None
    ) -> Transcript: ...


def read_jsonl(path: Path, start: Cursor) -> tuple[list[Record], Cursor, list[str]]:
    """The JSON objects after ``start``, the cursor after them, and warnings.

    A malformed line is skipped with a warning. A last line without a newline that
    does not parse is being written right now: it is left for the next read.
    """
    with path.open("rb") as f:
        f.seek(max(start.bytes - 1, 0))
        data = f.read()
    offset, line = start.bytes, start.lines
    if start.bytes:
        before, data = data[:1], data[1:]
        # the last read consumed an unterminated line; its newline has arrived since
        if before != b"\n" and data.startswith(b"\n"):
            data, offset = data[1:], offset + 1
    records: list[Record] = []
    warnings: list[str] = []
    chunks = data.split(b"\n")
    for i, chunk in enumerate(chunks):
        last = i == len(chunks) - 1
        if last and not chunk.strip():
            break
        problem: str | None
        try:
            value = json.loads(chunk) if chunk.strip() else None
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            if last:  # an unterminated line that does not parse: still being written
                break
            value, problem = None, f"not JSON ({err.__class__.__name__})"
        else:
            problem = None if value is None or isinstance(value, dict) else "not a JSON object"
        line += 1
        offset += len(chunk) + (0 if last else 1)
        if problem:
            warnings.append(f"{path}:{line}: {problem}, skipped")
        elif value is not None:
            records.append(Record(line, value))
    return records, Cursor(offset, line), warnings


def size(path: Path) -> int:
    """The session file's bytes (the cursor's ``bytes``)."""
    return path.stat().st_size


def appended(path: Path, start: Cursor) -> bool:
    """Whether ``path`` still holds what ``start`` consumed, followed by new lines only.

    Session files are append-only; one that shrank or was rewritten is not read
    from an old cursor (it would add the wrong messages).
    """
    if start.bytes == 0:
        return True
    if path.stat().st_size < start.bytes:
        return False
    with path.open("rb") as f:
        f.seek(start.bytes - 1)
        before, after = f.read(1), f.read(1)
    return before == b"\n" or after in (b"\n", b"")


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 timestamp (``Z`` allowed) as an aware datetime; naive means UTC."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def finish(info: SessionInfo, path: Path) -> SessionInfo:
    """Fill what the transcript did not say: the id from the file name, the branch from git."""
    info.session_id = info.session_id or path.stem
    if not info.branch and info.cwd and Path(info.cwd).is_dir():
        info.branch = git_scope(info.cwd).get("branch")
    return info


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` within ``limit`` characters, keeping its head and tail."""
    if len(text) <= limit:
        return text
    marker = f"\n…[{len(text) - limit} characters cut]…\n"
    keep = limit - len(marker)
    return text[: keep * 2 // 3] + marker + text[len(text) - (keep - keep * 2 // 3) :]


def compact(value: Any) -> Any:
    """Tool-call arguments with every long string cut (keys, paths and numbers kept)."""
    if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
        return value[:MAX_ARGUMENT_CHARS] + f"…[{len(value) - MAX_ARGUMENT_CHARS} more characters]"
    if isinstance(value, dict):
        return {k: compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [compact(v) for v in value]
    return value


class MessageBuilder:
    """Collects OpenAI-style messages from a transcript, in order.

    Assistant text and tool calls of one model response become one assistant
    message; ``key`` names that response where the transcript does (Claude Code's
    ``message.id``). Without a key, tool calls join the assistant message before
    them until a tool result or a user message ``close``s it.
    """

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None
        self._key: str | None = None

    def user(self, text: str, at: str | None) -> None:
        self.close()
        if text.strip():
            self.messages.append(_message("user", clip(text.strip()), at))

    def assistant(self, text: str, at: str | None, key: str | None = None) -> None:
        if not text.strip():
            return
        m = self._open if key is not None and self._key == key else None
        if m is None or m.get("tool_calls"):
            m = self._start(at, key)
        m["content"] = clip(
            text.strip() if not m["content"] else f"{m['content']}\n\n{text.strip()}"
        )

    def tool_call(
        self, call_id: str, name: str, arguments: Any, at: str | None, key: str | None = None
    ) -> None:
        m = self._open if self._open is not None and self._key == key else self._start(at, key)
        args = compact(arguments)  # a string that is not JSON is kept as it came, cut
        if not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        m.setdefault("tool_calls", []).append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
        )

    def close(self) -> None:
        """End the open assistant message (a tool result or the user came in between)."""
        self._open, self._key = None, None

    def _start(self, at: str | None, key: str | None) -> dict[str, Any]:
        self._open, self._key = _message("assistant", None, at), key
        self.messages.append(self._open)
        return self._open


def _message(role: str, content: str | None, at: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": content}
    if at:
        message["occurred_at"] = at
    return message
