"""The capture command: ``memhub capture {claude-code,codex}``.

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
from typing import TYPE_CHECKING, TextIO

from memhub.capture import PARSERS, CaptureState, capture
from memhub.capture.state import locked
from memhub.config import Settings
from memhub.errors import InvalidInputError

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation


def register(add: AddCommand) -> None:
    p = add(
        "capture", _capture, "add coding-agent sessions to memory (tool outputs are never read)"
    )
    p.add_argument("agent", choices=tuple(PARSERS), help="whose sessions to read")
    p.add_argument("--path", metavar="DIR",
                   help="where the sessions are (default ~/.claude/projects or ~/.codex/sessions)")  # fmt: skip
    p.add_argument("--since", metavar="DATE", type=_date,
                   help="only sessions active on or after DATE (2026-11-01 or an ISO time)")  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="parse and report; write nothing")


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
    storage_dir = Settings.load(storage_dir=getattr(a, "storage_dir", None)).storage_dir
    progress = _Progress(f"capture {a.agent}", sys.stderr)
    try:
        if a.dry_run:
            report = await capture(a.agent, root, client=None, state=CaptureState.load(storage_dir),
                                   user_id=user_id, since=a.since, warn=progress.warn, progress=progress)  # fmt: skip
        else:
            with locked(storage_dir) as held:
                if not held:
                    print("memhub: another capture is running; nothing done", file=sys.stderr)
                    return None
                # read under the lock: what the run before this one left
                state = CaptureState.load(storage_dir)
                report = await capture(a.agent, root, client=await inv.client(), state=state, user_id=user_id,
                                       since=a.since, warn=progress.warn, progress=progress)  # fmt: skip
    finally:
        progress.close()
    inv.emit(report.to_dict(), lambda _: report.summary())
    return None


class _Progress:
    """A one-line bar on a terminal's stderr; silent when stderr is not a terminal."""

    WIDTH = 30

    def __init__(self, label: str, stream: TextIO) -> None:
        self.label, self.stream, self.shown = label, stream, False
        self.on = stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.on or not total:
            return
        filled = self.WIDTH * done // total
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total}"
        )
        self.stream.flush()
        self.shown = True

    def warn(self, message: str) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
        print(f"memhub: warning: {message}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
