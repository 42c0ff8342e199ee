"""The scheduled digest of ``memhub serve --digest-every`` / ``serve-api --digest-every``."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from memhub import SyncMemoryClient, UsageError
from memhub.testing import HashEmbedder
from memhub_server.schedule import STATE_FILE, DigestSchedule, parse_interval

COFFEE = ["I drink coffee every morning", "I take coffee black", "my coffee grinder is new"]


def _write_pending(store, user: str = "alice") -> None:
    """Dual-mode writes: each ``add`` leaves its scope pending for the digest."""
    with SyncMemoryClient(storage_dir=store, mode="dual", embed=HashEmbedder()) as client:
        for text in COFFEE:
            client.add(content=text, user_id=user)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("24h", 86400), ("30m", 1800), ("90s", 90), ("1d", 86400), ("0.5s", 0.5), ("0", 0)],
)
def test_parse_interval(text, seconds):
    assert parse_interval(text) == seconds


def test_a_plain_number_is_hours_as_in_the_quickstart():
    assert parse_interval("24") == 24 * 3600  # `--digest-every 24`, "小时（默认 24）"


@pytest.mark.parametrize("text", ["", "soon", "-5m", "5 weeks"])
def test_parse_interval_refuses_what_is_not_a_duration(text):
    with pytest.raises(UsageError, match="not a duration"):
        parse_interval(text)


def test_the_schedule_digests_pending_scopes_and_logs_it(fresh_store, make_service):
    _write_pending(fresh_store)
    lines: list[str] = []

    async def run() -> list:
        service = make_service(fresh_store)
        await service.open()
        schedule = DigestSchedule(service, 0.2, lines.append)
        schedule.start()
        try:
            for _ in range(200):
                if len(lines) >= 2:
                    break
                await asyncio.sleep(0.1)
        finally:
            await schedule.stop()
        found = await (await service.client("local")).search(
            "咖啡", user_id="alice", derived_context_limit=5
        )
        await service.close()
        return found.memories.derived

    derived = asyncio.run(run())
    assert lines[0].startswith("digest: tenant 'local': 1 scope(s) processed, 1 derived item(s)")
    assert lines[1] == "digest: no pending scopes"  # each scope is digested once
    assert derived and "coffee" in derived[0].content


def test_serve_api_digest_every_runs_while_serving(memhub_main, fresh_store, monkeypatch, capsys):
    import uvicorn

    import memhub_server.hub

    _write_pending(fresh_store)
    monkeypatch.setattr(memhub_server.hub, "listen", lambda host, port: object())

    async def serve(self, sockets=None):  # serve for a few digest rounds, then stop
        await asyncio.sleep(1.5)

    monkeypatch.setattr(uvicorn.Server, "serve", serve)
    argv = ["--storage-dir", str(fresh_store), "serve-api", "--port", "8123"]
    assert memhub_main([*argv, "--digest-every", "0.3s"]) == 0
    err = capsys.readouterr().err
    assert "digest of pending scopes every 0.3s" in err
    assert "digest: tenant 'local': 1 scope(s) processed, 1 derived item(s) written" in err
    assert memhub_main([*argv, "--digest-every", "daily"]) != 0
    assert "not a duration: 'daily'" in capsys.readouterr().err


def test_an_overdue_round_runs_at_start_and_its_time_is_kept(fresh_store, make_service, tmp_path):
    """A hub restarted before each interval ends still digests: the interval counts from the
    last round with work, kept on disk, not from the start of this process."""
    _write_pending(fresh_store)
    state = tmp_path / STATE_FILE
    state.write_text(json.dumps({"since": time.time() - 2 * 3600}))  # last round: 2 hours ago
    lines: list[str] = []

    async def run() -> None:
        service = make_service(fresh_store)
        await service.open()
        schedule = DigestSchedule(service, 3600, lines.append, state)  # every hour
        schedule.start()
        try:
            for _ in range(100):
                if lines:
                    break
                await asyncio.sleep(0.1)
        finally:
            await schedule.stop()
            await service.close()

    asyncio.run(run())
    assert lines and lines[0].startswith("digest: tenant 'local': 1 scope(s) processed")
    assert time.time() - json.loads(state.read_text())["since"] < 60
    assert DigestSchedule(make_service(fresh_store), 3600, state=state)._since > time.time() - 60


def _serve_briefly(monkeypatch) -> None:
    import uvicorn

    import memhub_server.hub

    monkeypatch.setattr(memhub_server.hub, "listen", lambda host, port: object())

    async def serve(self, sockets=None):
        await asyncio.sleep(0.1)

    monkeypatch.setattr(uvicorn.Server, "serve", serve)


def test_a_dual_mode_service_digests_daily_unless_turned_off(
    memhub_main, fresh_store, monkeypatch, capsys
):
    _serve_briefly(monkeypatch)
    argv = ["--storage-dir", str(fresh_store), "serve-api", "--port", "8123"]
    assert memhub_main(argv) == 0
    assert "digest" not in capsys.readouterr().err  # system1: nothing to digest
    monkeypatch.setenv("MEMHUB_MODE", "dual")
    assert memhub_main(argv) == 0
    assert "digest of pending scopes every 24h" in capsys.readouterr().err
    assert memhub_main([*argv, "--digest-every", "0"]) == 0
    err = capsys.readouterr().err
    assert "scheduled digest off" in err and "digest of pending scopes" not in err
    assert memhub_main([*argv, "--digest-every", "12"]) == 0
    assert "digest of pending scopes every 12h" in capsys.readouterr().err
