"""``memhub serve-api`` stopped by SIGTERM under a stream of writes: no answered write is lost."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from memhub_server.auth import KEYS_FILE, KeyStore

BOOTSTRAP = """
import sys
from memhub.cli import app
from memhub.errors import UsageError
from memhub.testing.offline import use_hash_embedder
import memhub_server.cli as server_cli
use_hash_embedder()
try:
    app.build_parser().parse_args(["keys", "list"])
except UsageError:
    app.COMMAND_MODULES.append(server_cli)
sys.exit(app.main(sys.argv[1:]))
"""
WRITERS = 4
MAX_WRITES = 400  # per writer: a bound besides the server going away


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(store, tmp_path, port: int, log) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", BOOTSTRAP, "--storage-dir", str(store), "serve-api"]
        + ["--port", str(port), "--log-format", "json"],
        cwd=tmp_path,
        env={**os.environ, "MEMHUB_CONFIG": str(tmp_path / "cfg.yaml")},
        stdout=subprocess.DEVNULL,
        stderr=log,
    )


def _wait_ready(base: str, proc: subprocess.Popen, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"server exited {proc.returncode}"
        try:
            if httpx.get(f"{base}/ready", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("server did not become ready")


@pytest.mark.enable_socket
@pytest.mark.network
def test_sigterm_under_a_write_stream_loses_no_answered_write(fresh_store, tmp_path):
    key, _ = KeyStore(fresh_store / KEYS_FILE).create("acme")
    auth = {"Authorization": f"Bearer {key}"}
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "server.log", "w")  # noqa: SIM115 -- closed below
    proc = _serve(fresh_store, tmp_path, port, log)
    acked: list[tuple[str, float, float]] = []  # (atom id, sent, answered)
    other: list[str] = []
    signalled = threading.Event()
    lock = threading.Lock()

    def writer(n: int) -> None:
        with httpx.Client(base_url=base, headers=auth, timeout=60) as http:
            for i in range(MAX_WRITES):
                body = {
                    "content": f"部署记录 {n}-{i}：第 {i} 次发布到 staging-{n}",
                    "user_id": "u1",
                }
                sent = time.monotonic()
                try:
                    r = http.post("/v1/hmg/memorize", json=body)
                except httpx.TransportError:  # the server has gone: nothing was acknowledged
                    return
                with lock:
                    if r.status_code == 200:
                        acked.append((r.json()["atom_id"], sent, time.monotonic()))
                    else:
                        other.append(f"{r.status_code} {r.json()['error']['code']}")
                if r.status_code != 200 and signalled.is_set():
                    return

    try:
        _wait_ready(base, proc)
        threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while len(acked) < 40 and time.monotonic() < deadline:
            time.sleep(0.02)
        at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        signalled.set()
        for t in threads:
            t.join(timeout=90)
        assert proc.wait(timeout=90) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    assert len(acked) >= 40
    # the stop came while writes were running, and those were answered, not dropped
    assert any(sent < at < answered for _, sent, answered in acked)
    assert all(o == "503 shutting_down" for o in other), other

    # every acknowledged write is in the store when it comes back
    proc = _serve(fresh_store, tmp_path, port, subprocess.DEVNULL)
    try:
        _wait_ready(base, proc)
        with httpx.Client(base_url=base, headers=auth, timeout=30) as http:
            missing = [
                atom for atom, _, _ in acked if http.get(f"/v1/memories/{atom}").status_code != 200
            ]
            stats = http.get("/v1/hmg/stats").json()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert missing == []
    assert stats["atoms"] >= len(acked)
