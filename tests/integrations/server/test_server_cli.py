"""``memhub keys``, ``memhub serve-api`` and ``memhub serve``, through the core
``memhub`` command.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from memhub import SyncMemoryClient
from memhub.remote import HUB_FILE
from memhub.testing import HashEmbedder
from memhub_server.auth import KEYS_FILE, KeyStore

# The memhub command in a child process, with the server's commands registered as in
# ``memhub_main``.
CLI_BOOTSTRAP = """
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


def test_keys_create_prints_the_key_once_and_stores_its_hash(memhub_main, tmp_path, capsys):
    store = tmp_path / "store"
    assert memhub_main(["--storage-dir", str(store), "keys", "create", "--tenant", "acme"]) == 0
    out, err = capsys.readouterr()
    key = out.strip()
    assert key.startswith("mh_") and "shown only now" in err
    keys = KeyStore(store / KEYS_FILE)
    assert keys.tenant_for(key) == "acme" and key not in (store / KEYS_FILE).read_text()
    assert (store / KEYS_FILE).stat().st_mode & 0o777 == 0o600

    assert memhub_main(["--storage-dir", str(store), "keys", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["keys"]
    assert [k["tenant"] for k in listed] == ["acme"] and "sha256" not in listed[0]

    assert memhub_main(["--storage-dir", str(store), "keys", "revoke", listed[0]["id"]]) == 0
    assert keys.tenant_for(key) is None
    assert (
        memhub_main(["--storage-dir", str(store), "keys", "revoke", listed[0]["id"]]) == 3
    )  # not found


def test_keys_create_refuses_a_bad_tenant(memhub_main, tmp_path, capsys):
    assert memhub_main(["--storage-dir", str(tmp_path / "s"), "keys", "create"]) == 2
    assert (
        memhub_main(["--storage-dir", str(tmp_path / "s"), "keys", "create", "--tenant", "../etc"])
        == 2
    )
    assert "tenant" in capsys.readouterr().err


def test_keys_takes_only_each_actions_arguments(memhub_main, tmp_path, capsys):
    def keys(*argv: str) -> int:
        return memhub_main(["--storage-dir", str(tmp_path / "s"), "keys", *argv])

    assert keys("create", "--tenant", "acme") == 0
    assert keys("create", "--tenant", "ops", "--admin") == 0
    capsys.readouterr()
    assert keys("list", "--tenant", "acme", "--json") == 0  # --tenant narrows the list
    assert [k["tenant"] for k in json.loads(capsys.readouterr().out)["keys"]] == ["acme"]
    assert keys("list", "--admin") == 2
    assert "keys list does not take --admin" in capsys.readouterr().err
    assert keys("revoke", "k_nope", "--tenant", "acme") == 2
    assert "keys revoke does not take --tenant" in capsys.readouterr().err
    assert keys("create", "k_nope", "--tenant", "acme") == 2
    assert "keys create does not take KEY_ID" in capsys.readouterr().err
    assert len(KeyStore(tmp_path / "s" / KEYS_FILE).list_keys()) == 2  # nothing else was made


def test_serve_api_warns_when_it_binds_beyond_loopback(
    memhub_main, fresh_store, monkeypatch, capsys
):
    import uvicorn

    import memhub_server.hub

    bound = []
    monkeypatch.setattr(
        memhub_server.hub, "listen", lambda host, port: bound.append((host, port)) or object()
    )

    async def serve(self, sockets=None):  # no socket at all: this test only reads what is printed
        return None

    monkeypatch.setattr(uvicorn.Server, "serve", serve)
    assert (
        memhub_main(
            ["--storage-dir", str(fresh_store), "serve-api", "--host", "0.0.0.0", "--port", "8123"]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert bound == [("0.0.0.0", 8123)]
    assert "memhub REST API on http://0.0.0.0:8123" in out
    assert "warning: binding 0.0.0.0, not loopback" in err and "no API keys yet" in err

    assert memhub_main(["--storage-dir", str(fresh_store), "serve-api", "--port", "8123"]) == 0
    out, err = capsys.readouterr()
    assert "http://127.0.0.1:8123" in out and "not loopback" not in err


def _spawn(tmp_path, *argv: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "MEMHUB_CONFIG": str(tmp_path / "cfg.yaml"),
    }
    return subprocess.Popen(
        [sys.executable, "-c", CLI_BOOTSTRAP, *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _output(proc: subprocess.Popen) -> str:
    """What the ended server printed; its pipes are closed after."""
    out, _ = proc.communicate()
    return out


def _wait(condition, proc: subprocess.Popen, seconds: float = 90.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (found := condition()) is not None:
            return found
        if proc.poll() is not None:
            raise AssertionError(f"server exited {proc.returncode}: {proc.stderr.read()}")
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not come up in time")


@pytest.mark.enable_socket
@pytest.mark.network
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_memhub_serve_runs_a_hub_until_stopped_and_cleans_up(fresh_store, tmp_path, stop):
    proc = _spawn(tmp_path, "--storage-dir", str(fresh_store), "serve")
    try:
        info = _wait(
            lambda: json.loads(p.read_text()) if (p := fresh_store / HUB_FILE).exists() else None,
            proc,
        )
        assert info["pid"] == proc.pid and info["url"].startswith("http://127.0.0.1:")
        with SyncMemoryClient(
            storage_dir=fresh_store, embed=HashEmbedder(), cwd=tmp_path
        ) as client:
            atom = client.memorize("发布窗口是每周四下午")
            assert client.recall("发布窗口").atoms[0].atom_id == atom.atom_id
        proc.send_signal(stop)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not (fresh_store / HUB_FILE).exists()
    assert f"memhub hub on {info['url']}" in _output(proc)
    # The store is free again and holds what was written through the hub.
    with SyncMemoryClient(storage_dir=fresh_store, embed=HashEmbedder(), cwd=tmp_path) as local:
        assert local.recall("发布窗口").atoms[0].atom_id == atom.atom_id


@pytest.mark.enable_socket
@pytest.mark.network
def test_memhub_serve_api_serves_tenants_by_key(fresh_store, tmp_path):
    key, _ = KeyStore(fresh_store / KEYS_FILE).create("acme")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = _spawn(tmp_path, "--storage-dir", str(fresh_store), "serve-api", "--port", str(port))
    base = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return httpx.get(f"{base}/health", timeout=2).json()
        except httpx.HTTPError:
            return None

    try:
        assert _wait(healthy, proc)["status"] == "ok"
        assert httpx.get(f"{base}/v1/hmg/stats").status_code == 401
        stats = httpx.get(f"{base}/v1/hmg/stats", headers={"Authorization": f"Bearer {key}"})
        assert stats.status_code == 200 and stats.json()["atoms"] == 0
        # the rules over long requests run in a worker process of the server's own
        workers = _wait(lambda: _workers_of(proc.pid) or None, proc)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert f"memhub REST API on {base}" in _output(proc)
    deadline = time.monotonic() + 30  # and it ends with the server
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{w}").exists() for w in workers)


def _workers_of(pid: int) -> list[int]:
    """The ``memhub.cpu`` worker processes whose parent is ``pid`` (Linux ``/proc``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and b"_cpu_worker" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.enable_socket
@pytest.mark.network
@pytest.mark.parametrize("flag", [[], ["--no-browser"]], ids=["opens", "no-browser"])
def test_memhub_ui_starts_a_hub_and_opens_the_inspector(
    memhub_main, fresh_store, capsys, monkeypatch, flag
):
    import webbrowser

    from memhub_server.hub import LocalHub

    opened: list[str] = []
    signed_in: list[int] = []

    async def visit_then_stop(hub: LocalHub) -> None:  # instead of serving until Ctrl-C
        async with httpx.AsyncClient() as http:
            signed_in.append((await http.get(hub.inspector_url)).status_code)

    monkeypatch.setattr(webbrowser, "open", opened.append)
    monkeypatch.setattr(LocalHub, "wait", visit_then_stop)
    assert memhub_main(["--storage-dir", str(fresh_store), "ui", *flag]) == 0
    out = capsys.readouterr().out
    link = out.split("memory inspector: ", 1)[1].split()[0]
    assert link.startswith("http://127.0.0.1:") and "/ui/?token=" in link
    assert opened == ([] if flag else [link])
    assert signed_in == [303]  # the link's token signs in (and leaves the address bar)
