"""Capture coding-agent sessions (Claude Code, Codex, OpenCode) into memhub.

Each session file becomes one ``client.add(messages=...)`` call with the session's
id, its working directory as ``workspace_id``, its git branch and
``metadata={"source": "claude-code" | "codex" | "opencode"}``. A session that grew since the
last capture adds only its new messages (see :mod:`memhub.capture.state`).

What is kept: user text, assistant text, and assistant ``tool_calls`` with the
tool's name and arguments (they carry the file paths; long strings inside them
are cut). What is never read: tool results. No ``role="tool"`` message is emitted,
not even an empty placeholder: it would carry nothing (the output is not read and
``add`` drops tool messages anyway) and would double the message count of a
tool-heavy session against ``add``'s per-call limit. A ``tool_calls`` message is
therefore not followed by its results, which ``add`` accepts.

Example:
    >>> async with MemoryClient() as client:
    ...     state = CaptureState.load(client.settings.storage_dir)
    ...     report = await capture("claude-code", claude_code.default_root(), client=client,
    ...                            state=state, user_id="alice")
    ...     print(report.summary())
    captured 3 new sessions, 0 updated, 0 unchanged (41 messages)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.capture import claude_code, codex, opencode
from memhub.capture._common import START, Cursor, Parser, SessionInfo, Transcript, parse_time
from memhub.capture.state import STATE_FILE, CaptureState, Entry
from memhub.errors import InvalidInputError
from memhub.messages import MAX_MESSAGES

if TYPE_CHECKING:
    from memhub.client import MemoryClient

__all__ = [
    "PARSERS",
    "STATE_FILE",
    "CaptureReport",
    "CaptureState",
    "Cursor",
    "SessionInfo",
    "Transcript",
    "capture",
    "claude_code",
    "codex",
    "opencode",
]

PARSERS: dict[str, Parser] = {
    claude_code.SOURCE: claude_code,
    codex.SOURCE: codex,
    opencode.SOURCE: opencode,
}
"""Each parser module is a ``Parser``: ``SOURCE``, ``default_root()``, ``discover(root)``,
``parse(path, start, info)`` and the cursor checks ``size(path)`` and ``appended(path,
start)`` (one JSONL file per session takes them from ``_common``; OpenCode, whose
session spans several files, has its own)."""


@dataclass
class CaptureReport:
    """What one capture run did (or, with ``dry_run``, would do)."""

    source: str
    dry_run: bool = False
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: int = 0
    messages: int = 0

    def summary(self) -> str:
        head = "dry run: would capture" if self.dry_run else "captured"
        text = (
            f"{head} {self.new} new sessions, {self.updated} updated, {self.unchanged} unchanged "
            f"({self.messages} messages)"
        )
        return text + (f"; {self.failed} failed, see the warnings" if self.failed else "")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


async def capture(
    source: str,
    root: Path,
    *,
    client: MemoryClient | None,
    state: CaptureState,
    user_id: str,
    since: datetime | None = None,
    warn: Callable[[str], None] = lambda _: None,
    progress: Callable[[int, int], None] | None = None,
) -> CaptureReport:
    """Add the new messages of every ``source`` session under ``root`` to ``client``.

    Args:
        source: ``"claude-code"``, ``"codex"`` or ``"opencode"`` (a key of ``PARSERS``).
        root: the folder to look in (``PARSERS[source].default_root()`` is the agent's own).
        client: where to add; ``None`` is a dry run: parse and count, write nothing.
        state: what earlier runs consumed; recorded and saved after each session.
        user_id: whose memories these are.
        since: only sessions with activity at or after this time.
        warn: called with one line per problem (a malformed line, a refused session).
        progress: called with ``(done, total)`` session files.
    """
    parser = PARSERS[source]
    files = parser.discover(root) if root.is_dir() else []
    report = CaptureReport(source, dry_run=client is None)
    for done, path in enumerate(files):
        if progress:
            progress(done, len(files))
        outcome, count = await _capture_file(
            parser, path, state, client=client, user_id=user_id, since=since, warn=warn
        )
        if outcome != "excluded":
            setattr(report, outcome, getattr(report, outcome) + 1)
        report.messages += count
    if progress:
        progress(len(files), len(files))
    return report


async def _capture_file(
    parser: Parser,
    path: Path,
    state: CaptureState,
    *,
    client: MemoryClient | None,
    user_id: str,
    since: datetime | None,
    warn: Callable[[str], None],
) -> tuple[str, int]:
    """One session file: ``(outcome, messages added)``, outcome a ``CaptureReport`` counter or
    ``excluded``.
    """
    stat = path.stat()
    if since and datetime.fromtimestamp(stat.st_mtime, UTC) < since:
        return "excluded", 0
    entry = state.get(path)
    start = entry.cursor if entry else START
    size = parser.size(path)
    if size == start.bytes:
        return "unchanged", 0
    if not parser.appended(path, start):
        warn(f"{path}: rewritten since it was captured (not appended to); skipped")
        return "unchanged", 0
    t: Transcript = parser.parse(path, start, replace(entry.info) if entry else None)
    for problem in t.warnings:
        warn(problem)
    last = parse_time(t.info.last_at)
    if since and last and last < since:
        return "excluded", 0
    added = entry.messages if entry else 0
    if t.info.skip or not t.messages:  # nothing to add: move the cursor past it
        if client is not None and t.end != start:
            state.record(path, Entry(parser.SOURCE, t.end, added, t.info))
            state.save()
        return "unchanged", 0
    if not any(m["content"] for m in t.messages):
        return "unchanged", 0  # tool calls but no text yet: they go with the text that follows
    outcome = "updated" if added else "new"
    if client is None:
        return outcome, len(t.messages)
    try:
        for batch in _batches(t.messages):
            await client.add(
                messages=batch,
                user_id=user_id,
                session_id=t.info.session_id,
                workspace_id=t.info.cwd,
                branch=t.info.branch,
                metadata={"source": parser.SOURCE},
            )
    except InvalidInputError as err:  # one session memhub refuses does not stop the others
        warn(f"{path}: not captured: {err}")
        return "failed", 0
    state.record(path, Entry(parser.SOURCE, t.end, added + len(t.messages), t.info))
    state.save()
    return outcome, len(t.messages)


def _batches(
    messages: list[dict[str, Any]], limit: int = MAX_MESSAGES
) -> list[list[dict[str, Any]]]:
    """One batch, unless the session exceeds ``add``'s message limit: then cut before user turns."""
    batches: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    for message in messages:
        current.append(message)
        if len(current) > limit:
            cut = max(
                (i for i, m in enumerate(current) if i and m["role"] == "user"), default=limit
            )
            batches.append(current[:cut])
            current = current[cut:]
    return [*batches, current] if current else batches
