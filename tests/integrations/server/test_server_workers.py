"""Several ``serve-api`` processes over one Qdrant: what they share is safe to share.

The Qdrant is the test-only REST shim over qdrant-client's local mode
(``memhub.testing.qdrant_rest``), in a process of its own; each memhub process is a real
``memhub serve-api`` started as a user would, over ``MEMHUB_QDRANT_URL``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from qdrant_client import AsyncQdrantClient

from memhub.errors import UsageError
from memhub.store.edge import EdgeStore
from memhub.store.server import QdrantServerStore
from memhub.testing import qdrant_rest
from memhub_server.auth import KEYS_FILE, KeyStore
from memhub_server.limits import Limit
from memhub_server.schedule import DigestSchedule, claim_round

pytestmark = [pytest.mark.enable_socket, pytest.mark.network]

# The memhub command; a worker that uvicorn spawns imports this file again (as
# ``__mp_main__``), so it uses the test embedder too.
BOOT = textwrap.dedent(
    """
    import sys
    from memhub.testing.offline import use_hash_embedder
    use_hash_embedder()
    if __name__ == "__main__":
        from memhub.cli import app
        from memhub.errors import UsageError
        import memhub_server.cli as server_cli
        try:
            app.build_parser().parse_args(["keys", "list"])
        except UsageError:
            app.COMMAND_MODULES.append(server_cli)
        sys.exit(app.main(sys.argv[1:]))
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """One ``memhub serve-api`` process, stopped (and killed if need be) by ``stop``."""

    def __init__(self, folder: Path, store: Path, qdrant: str, prefix: str, *argv: str) -> None:
        boot = folder / "memhub_boot.py"
        boot.write_text(BOOT)
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"serve-{self.port}.log"
        env = {
            **os.environ,
            "MEMHUB_CONFIG": str(folder / "config.yaml"),
            "MEMHUB_QDRANT_URL": qdrant,
            "MEMHUB_COLLECTION_PREFIX": prefix,
        }
        command = [sys.executable, str(boot), "--storage-dir", str(store), "serve-api"]
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [*command, "--port", str(self.port), *argv],
                cwd=folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self, seconds: float = 120.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"serve-api exited {self.proc.returncode}: {self.output()}")
            try:
                if httpx.get(f"{self.base}/ready", timeout=30).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"serve-api was not ready in {seconds:g} s: {self.output()}")

    def output(self) -> str:
        return self.log.read_text()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture(scope="module")
def qdrant() -> Iterator[str]:
    with qdrant_rest.running() as url:
        yield url


class Pair:
    """Processes over one store (one storage_dir, one collection prefix), stopped at the end."""

    def __init__(self, folder: Path, qdrant: str) -> None:
        self.folder, self.qdrant = folder, qdrant
        self.store, self.prefix = folder / "store", f"w{uuid.uuid4().hex[:10]}"
        self.keys = KeyStore(self.store / KEYS_FILE)
        self.started: list[Served] = []

    def start(self, *argv: str) -> Served:
        served = Served(self.folder, self.store, self.qdrant, self.prefix, *argv)
        self.started.append(served)
        return served

    def stop(self) -> None:
        for served in self.started:
            served.stop()


BACKUP_EVERY = 3.0


@pytest.fixture(scope="module")
def two(
    tmp_path_factory: pytest.TempPathFactory, qdrant: str
) -> Iterator[tuple[Pair, Served, Served]]:
    """Two ``serve-api`` processes over one store, each with a backup schedule."""
    pair = Pair(tmp_path_factory.mktemp("two"), qdrant)
    backups = pair.folder / "backups"
    every = f"{BACKUP_EVERY:g}s"
    argv = ("--backup-every", every, "--backup-dir", str(backups), "--digest-every", "0")
    try:
        a, b = pair.start(*argv), pair.start(*argv)
        a.wait_ready()
        b.wait_ready()
        yield pair, a, b
    finally:
        pair.stop()


@pytest.fixture
def pair(tmp_path: Path, qdrant: str) -> Iterator[Pair]:
    started = Pair(tmp_path, qdrant)
    try:
        yield started
    finally:
        started.stop()


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_workers_need_a_qdrant_server_and_change_nothing(memhub_main, tmp_path, capsys):
    store = tmp_path / "store"
    code = memhub_main(["--storage-dir", str(store), "serve-api", "--workers", "2"])
    assert code != 0
    assert "needs a Qdrant server" in capsys.readouterr().err
    assert not store.exists()  # nothing opened, nothing written


def test_a_key_created_or_revoked_applies_on_every_process_at_once(two):
    pair, a, b = two
    key, info = pair.keys.create("acme")  # what `memhub keys create` does, while both run
    for served in (a, b):
        got = httpx.get(f"{served.base}/v1/memories/", params={"user_id": "u"}, headers=_auth(key))
        assert got.status_code == 200, served.output()
    pair.keys.revoke(info.id)
    for served in (a, b):
        got = httpx.get(f"{served.base}/v1/memories/", params={"user_id": "u"}, headers=_auth(key))
        assert got.status_code == 401


def test_two_processes_racing_to_update_one_memory_leave_one_winner_each_time(two):
    pair, a, b = two
    key, _ = pair.keys.create("acme")
    user = {"user_id": "racer"}
    first = httpx.post(
        f"{a.base}/v1/memories/",
        json={"content": "My favourite colour is green", **user},
        headers=_auth(key),
        timeout=60,
    )
    assert first.status_code == 200, first.text
    current = first.json()["decisions"][0]["memory_id"]
    chain = [current]
    winners: list[str] = []
    pool = ThreadPoolExecutor(2)
    for n in range(8):

        def put(served: Served, text: str, target: str = current) -> httpx.Response:
            return httpx.put(
                f"{served.base}/v1/memories/{target}",
                json={"content": text, **user},
                headers=_auth(key),
                timeout=60,
            )

        texts = (f"colour {n} from a is red", f"colour {n} from b is blue")
        answers = list(zip(pool.map(put, (a, b), texts), texts, strict=True))
        ok = [(r, text) for r, text in answers if r.status_code == 200]
        assert len(ok) == 1, [(r.status_code, r.text) for r, _ in answers]
        lost = [r for r, _ in answers if r.status_code != 200]
        # the loser is told: 409 if it lost the conditional write itself, 404 if it read the
        # memory after the winner had replaced it (only a current version can be updated)
        assert lost[0].status_code in (404, 409), lost[0].text
        assert ok[0][0].json()["replaces"] == current
        current = ok[0][0].json()["id"]
        chain.append(current)
        winners.append(ok[0][1])
    pool.shutdown()
    every = httpx.get(
        f"{b.base}/v1/memories/",
        params={**user, "include_history": "true"},
        headers=_auth(key),
    ).json()
    status = {m["id"]: m["status"] for m in every}
    # one chain: the first version and one per winning update, only the last one current
    assert len(status) == 1 + len(winners)
    assert [i for i, s in status.items() if s == "active"] == [current]
    assert sorted(s for i, s in status.items() if i != current) == ["superseded"] * len(winners)
    got = httpx.get(f"{a.base}/v1/memories/{current}", params=user, headers=_auth(key)).json()
    assert got["content"] == winners[-1]
    assert got["evolution_chain"] == chain[-2::-1]  # every earlier version, newest first


async def test_of_processes_claiming_one_round_at_once_exactly_one_wins(qdrant):
    prefix = f"c{uuid.uuid4().hex[:10]}"
    # 3 clients, without the version check (its thread would outlive the test)
    clients = [AsyncQdrantClient(url=qdrant, check_compatibility=False) for _ in range(3)]
    stores = [QdrantServerStore(qdrant, prefix=prefix, client=c) for c in clients]
    for store in stores:
        await store.open(vector_size=8)
    try:
        since = time.time() - 60
        claims = await asyncio.gather(*(claim_round(s, "digest", since) for s in stores))
        assert sorted(won for won, _ in claims) == [False, False, True]
        ran_at = {at for _, at in claims}
        assert len(ran_at) == 1  # the losers learn when the winner ran it
        # the round is taken: a late claimer with the old ``since`` skips it too
        assert await claim_round(stores[0], "digest", since) == (False, ran_at.pop())
        # another schedule's round is its own
        assert (await claim_round(stores[1], "backup", since))[0]
    finally:
        for store, client in zip(stores, clients, strict=True):
            await store.close()
            await client.close()


async def test_one_process_on_the_embedded_store_always_wins_its_rounds(tmp_path):
    store = EdgeStore(tmp_path / "store")
    await store.open(vector_size=8)
    try:
        won, at = await claim_round(store, "digest", 0.0)
        assert won
        assert (await claim_round(store, "digest", at))[0]  # the next round after its own
    finally:
        await store.close()


def test_scheduled_backups_run_once_per_round_across_processes(two):
    pair, a, b = two
    backups = pair.folder / "backups"
    key, _ = pair.keys.create("acme")
    body = {"content": "The office is in Lyon", "user_id": "u"}
    assert httpx.post(f"{a.base}/v1/memories/", json=body, headers=_auth(key)).status_code == 200
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline and len(list(backups.glob("memhub-backup-*"))) < 4:
        time.sleep(0.5)
    a.stop(), b.stop()
    made = sorted(p.stat().st_mtime for p in backups.glob("memhub-backup-*"))
    assert len(made) >= 3, a.output() + b.output()
    gaps = [later - earlier for earlier, later in zip(made, made[1:], strict=False)]
    assert min(gaps) > BACKUP_EVERY / 2, gaps  # two processes in one round would be ms apart
    logged = a.output().count("memhub: backup: ") + b.output().count("memhub: backup: ")
    assert logged == len(made)  # every backup made was one process's round, none twice


def _requests_counted(base: str, admin: str, route: str) -> float:
    text = httpx.get(f"{base}/metrics", headers=_auth(admin)).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("memhub_requests_total{") and f'route="{route}"' in line
    )


def test_workers_answer_on_one_port_and_metrics_count_every_worker(pair):
    served = pair.start("--workers", "2")
    served.wait_ready()
    key, _ = pair.keys.create("acme")
    admin, _ = pair.keys.create("ops", admin=True)
    children = Path(f"/proc/{served.proc.pid}/task/{served.proc.pid}/children").read_text()
    assert len(children.split()) >= 2  # the workers (and the spawn machinery's tracker)
    for n in range(12):  # a new connection each: the workers take them as they come
        got = httpx.post(
            f"{served.base}/v1/memories/search",
            json={"query": f"office {n}", "user_id": "u"},
            headers=_auth(key),
        )
        assert got.status_code == 200
    # whichever worker answers /metrics, it counts the searches every worker answered
    for _ in range(4):
        assert _requests_counted(served.base, admin, "/v1/memories/search") == 12
    # rate windows are per worker (memory://): a key limited to 3 a minute gets at least 3
    # and at most 2 x 3 of 10 requests, the rest 429
    limited, _ = pair.keys.create("slow", limits=Limit(rate="3/minute"))
    statuses = [
        httpx.get(f"{served.base}/v1/memories/", params={"user_id": "u"}, headers=_auth(limited))
        for _ in range(10)
    ]
    admitted = sum(r.status_code == 200 for r in statuses)
    assert 3 <= admitted <= 6 and sum(r.status_code == 429 for r in statuses) == 10 - admitted
    assert served.stop() == 0
    assert "2 workers stopped" in served.output()


def test_workers_refuse_a_bad_count(memhub_main, tmp_path, capsys):
    code = memhub_main(["--storage-dir", str(tmp_path / "s"), "serve-api", "--workers", "0"])
    assert code != 0 and "--workers must be 1 or more" in capsys.readouterr().err


def test_the_worker_factory_says_how_it_is_run(monkeypatch):
    from memhub_server.workers import OPTIONS_ENV, create_worker_app

    monkeypatch.delenv(OPTIONS_ENV, raising=False)
    with pytest.raises(UsageError, match="serve-api --workers"):
        create_worker_app()


def test_workers_that_cannot_reach_qdrant_stop_the_command_with_the_reason(tmp_path):
    url = f"http://127.0.0.1:{_free_port()}"  # nobody listens there
    served = Served(tmp_path, tmp_path / "store", url, "unreachable", "--workers", "2")
    try:
        code = served.proc.wait(timeout=120)
    finally:
        served.stop()
    assert code != 0
    assert f"cannot reach the Qdrant server at {url}" in served.output()
    assert "a worker could not start" in served.output()


async def test_two_shared_digest_schedules_over_one_store_run_each_round_once(
    fresh_store, make_service
):
    service = make_service(fresh_store)
    await service.open()
    rounds: list[tuple[str, float]] = []
    schedules = [
        DigestSchedule(service, 1.0, lambda line, n=n: rounds.append((n, time.time())), shared=True)
        for n in ("a", "b")
    ]
    for schedule in schedules:
        schedule.start()  # both due at the same moment, one second on
    try:
        await asyncio.sleep(3.6)
    finally:
        for schedule in schedules:
            await schedule.stop()
        await service.close()
    times = sorted(at for _, at in rounds)
    assert 2 <= len(times) <= 4, rounds  # one round a second, not two
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) > 0.5, rounds


async def test_of_two_writers_in_the_same_millisecond_with_one_rev_the_second_loses(
    monkeypatch, tmp_path
):
    """Two processes can write ``rev + 1`` of one memory at the same millisecond: the one
    whose conditional write did not apply must not take the other's write for its own."""
    import memhub.engine.core as engine_core
    from memhub import Settings
    from memhub.engine.payload import as_memory
    from memhub.errors import ConflictError
    from memhub.ids import to_point_id
    from memhub.testing import HashEmbedder
    from memhub_server.service import MemoryService

    store = QdrantServerStore(":memory:")
    service = MemoryService(Settings(storage_dir=str(tmp_path)), store=store, embed=HashEmbedder())
    await service.open()
    try:
        client = await service.client("acme")
        written = await client.add("My favourite colour is green", user_id="u")
        fact = written.decisions[0].memory_id
        (point,) = await store.retrieve("memories", [to_point_id(fact)])
        stale = as_memory(point.payload)  # what both writers read
        monkeypatch.setattr(engine_core, "now", lambda: "2026-01-01T00:00:00.000Z")
        await service.engine.update(stale, {"superseded_by": "first"})
        with pytest.raises(ConflictError):
            await service.engine.update(stale, {"superseded_by": "second"})
        (point,) = await store.retrieve("memories", [to_point_id(fact)])
        assert point.payload["superseded_by"] == "first"
    finally:
        await service.close()
