"""Helpers for running a real ``memhub-mcp`` server in a subprocess.

The server runs in a fake git checkout (``acme/shop`` on ``main``) so that the scope it
infers from its working directory is known, with its config and store in a temp dir and
the deterministic test embedder (``memhub.testing.offline``) to keep it fast.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

REPOSITORY = "acme/shop"
BRANCH = "main"
# A cold start imports the SDK and creates the store: seconds, more on a busy machine.
START_TIMEOUT = 120.0


def make_checkout(folder: Path) -> Path:
    """A folder that ``memhub.scope.git_scope`` reads as a checkout of acme/shop on main."""
    git = folder / ".git"
    git.mkdir(parents=True)
    (git / "config").write_text('[remote "origin"]\n\turl = git@github.com:acme/shop.git\n')
    (git / "HEAD").write_text(f"ref: refs/heads/{BRANCH}\n")
    return folder


def server_env(folder: Path) -> dict[str, str]:
    """Only what the server needs: never the developer's ``MEMHUB_*`` settings or keys."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(folder),
        "MEMHUB_CONFIG": str(folder / "memhub-config.yaml"),
    }


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "memhub.testing.offline", "memhub_mcp", *args]


def wait_for_line(
    proc: subprocess.Popen, log: Path, pattern: str, timeout: float = START_TIMEOUT
) -> re.Match:
    """The first match of ``pattern`` in the server's stderr log, waiting for it to appear."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := re.search(pattern, log.read_text()):
            return found
        if proc.poll() is not None:
            pytest.fail(
                f"server exited with {proc.returncode} before {pattern!r}:\n{log.read_text()}"
            )
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no {pattern!r} from the server within {timeout}s:\n{log.read_text()}")


def stop(proc: subprocess.Popen, timeout: float = 20.0) -> int:
    """SIGTERM, then the exit code (the server shuts down cleanly on it)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"server did not stop within {timeout}s of SIGTERM")


@dataclass
class Server:
    """A connected server: the client session and the server's stderr log."""

    session: ClientSession
    log: Path
    storage_dir: Path

    def stderr(self) -> str:
        return self.log.read_text()


async def open_session(
    streams: AbstractAsyncContextManager[Any],
) -> tuple[ClientSession, Callable[[], Awaitable[None]]]:
    """An initialized ``ClientSession`` over ``streams``, and the coroutine that closes both.

    The transport and session are anyio task groups, which must be exited by the task that
    entered them; pytest-asyncio sets a fixture up and tears it down in different tasks, so
    one task holds them open until ``close()``.
    """
    ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def hold() -> None:
        try:
            async with streams as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                ready.set_result(session)
                await done.wait()
        except BaseException as err:
            if not ready.done():
                ready.set_exception(err)
            raise

    task = asyncio.create_task(hold())

    async def close() -> None:
        done.set()
        await task

    return await ready, close
