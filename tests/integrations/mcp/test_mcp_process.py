"""The ``memhub-mcp`` process: one store per process, clean shutdown, and what it says on stderr."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from mcp_harness import (
    START_TIMEOUT,
    make_checkout,
    server_command,
    server_env,
    stop,
    wait_for_line,
)


def start_stdio(folder: Path, store: Path, log: Path) -> subprocess.Popen:
    """A stdio server that runs until its stdin is closed (nothing is sent on it)."""
    with log.open("w") as errlog:
        return subprocess.Popen(
            server_command("--storage-dir", str(store)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            env=server_env(folder),
            cwd=make_checkout(folder / "shop"),
        )


def run_once(folder: Path, store: Path) -> subprocess.CompletedProcess:
    """A stdio server whose client leaves at once (stdin at EOF): it opens the store and exits."""
    return subprocess.run(
        server_command("--storage-dir", str(store)),
        input=b"",
        capture_output=True,
        env=server_env(folder),
        cwd=folder,
        timeout=START_TIMEOUT,
    )


def test_a_held_store_refuses_a_second_server_until_sigterm_releases_it(tmp_path: Path, new_store):
    store, log = new_store(tmp_path / "store"), tmp_path / "first.log"
    with start_stdio(tmp_path, store, log) as first:
        wait_for_line(first, log, "serving MCP on stdio")
        second = run_once(tmp_path, store)
        lines = second.stderr.decode().splitlines()
        assert second.returncode == 5 and second.stdout == b"", second.stderr.decode()
        assert len(lines) == 1 and lines[0].startswith("memhub-mcp: error: store_locked: ")
        assert str(store) in lines[0] and f"process {first.pid}" in lines[0]
        assert stop(first) == -signal.SIGTERM  # it dies of the signal, after closing the store
        assert first.stdout.read() == b""  # stdout is the protocol: nothing else was written there
    assert "Traceback" not in log.read_text()
    again = run_once(tmp_path, store)
    assert again.returncode == 0, again.stderr.decode()


def test_a_non_loopback_host_warns_and_a_taken_port_is_one_line(tmp_path: Path, new_store):
    log = tmp_path / "server.log"
    command = server_command(
        "--transport",
        "streamable-http",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--storage-dir",
        str(new_store(tmp_path / "store")),
    )
    with log.open("w") as errlog:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errlog,
            env=server_env(tmp_path),
            cwd=tmp_path,
        )
    try:
        port = wait_for_line(proc, log, r"serving MCP on http://0\.0\.0\.0:(\d+)/mcp").group(1)
        assert "warning: 0.0.0.0 is not a loopback address" in log.read_text()
        taken = subprocess.run(
            server_command(
                "--transport",
                "streamable-http",
                "--host",
                "0.0.0.0",
                "--port",
                port,
                "--storage-dir",
                str(new_store(tmp_path / "other")),
            ),
            capture_output=True,
            env=server_env(tmp_path),
            cwd=tmp_path,
            timeout=START_TIMEOUT,
        )
        lines = taken.stderr.decode().splitlines()
        assert taken.returncode == 1 and len(lines) == 1, taken.stderr.decode()
        assert lines[0].startswith(f"memhub-mcp: error: cannot listen on 0.0.0.0:{port}")
    finally:
        code = stop(proc)
    # uvicorn shuts down (the lifespan closes the store), then dies of the signal it caught.
    assert code == -signal.SIGTERM
    assert "Traceback" not in log.read_text()
