"""The capture command: ``memhub capture {claude-code,codex,opencode}``.

Reads the agent's session files (``--path``, default the agent's own folder), adds
each session's new messages with one ``add`` call, and keeps what it consumed in
``<storage_dir>/capture_state.json`` so a re-run adds only what is new. Tool
outputs are never read (``memhub.capture``). ``--user-id`` defaults to the OS user.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memhub import progress as progress_
from memhub.capture import PARSERS, CaptureState, capture, opencode
from memhub.capture.state import locked
from memhub.errors import InvalidInputError

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation


def register(add: AddCommand) -> None:
    p = add(
        "capture",
        _capture,
        "add coding-agent sessions to memory (tool outputs are never read)",
        scope=("tenant", "user_id"),
    )
    p.add_argument("agent", choices=tuple(PARSERS), help="whose sessions to read")
    p.add_argument(
        "--path", metavar="DIR", help="where the sessions are (default: the agent's own folder)"
    )
    p.add_argument(
        "--since",
        metavar="DATE",
        type=_date,
        help="only sessions active on or after DATE (2026-11-01 or an ISO time)",
    )
    p.add_argument("--dry-run", action="store_true", help="parse and report; write nothing")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _date(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} (use YYYY-MM-DD)") from err
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "local"


async def _capture(inv: Invocation) -> int | None:
    a = inv.args
    parser = PARSERS[a.agent]
    root = Path(a.path).expanduser() if a.path else parser.default_root()
    if a.path and not root.is_dir():
        raise InvalidInputError(f"--path {a.path}: not a folder")
    user_id = inv.scope.get("user_id") or _os_user()
    storage_dir = inv.settings().storage_dir
    progress = _Sessions(f"capture {a.agent}", a.quiet)
    if a.agent == opencode.SOURCE and (why := opencode.unread(root)):
        progress.warn(why)  # else a run that reads nothing would only say "captured 0"
    try:
        if a.dry_run:
            report = await capture(
                a.agent,
                root,
                client=None,
                state=CaptureState.load(storage_dir),
                user_id=user_id,
                since=a.since,
                warn=progress.warn,
                progress=progress,
            )
        else:
            with locked(storage_dir) as held:
                if not held:
                    print("memhub: another capture is running; nothing done", file=sys.stderr)
                    return None
                # read under the lock: what the run before this one left
                state = CaptureState.load(storage_dir)
                report = await capture(
                    a.agent,
                    root,
                    client=await inv.client(),
                    state=state,
                    user_id=user_id,
                    since=a.since,
                    warn=progress.warn,
                    progress=progress,
                )
    finally:
        progress.close()
    inv.emit(report.to_dict(), lambda _: report.summary())
    return None


class _Sessions:
    """``capture``'s ``(done, total)`` callback drawn as a ``memhub.progress`` bar (sessions,
    with rate and ETA, on a terminal); warnings always reach stderr, above the bar."""

    def __init__(self, label: str, quiet: bool) -> None:
        self.label, self.done = label, 0
        self.bar = progress_.bar(quiet, unit=" sessions")
        self.drawn = isinstance(self.bar, progress_.TqdmProgress)
        self.started = False

    def __call__(self, done: int, total: int) -> None:
        if not self.started:
            self.bar.start(self.label, total)
            self.started = True
        self.bar.advance(done - self.done)
        self.done = done

    def warn(self, message: str) -> None:
        if self.drawn:
            self.bar.note(f"warning: {message}")
        else:
            print(f"memhub: warning: {message}", file=sys.stderr, flush=True)

    def close(self) -> None:
        self.bar.close()
