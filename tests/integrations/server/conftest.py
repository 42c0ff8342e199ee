"""Fixtures: the REST app over a real Qdrant Edge store, two tenants' keys, a hub in a thread.

Creating Edge shards takes seconds (it fsyncs a lot), so one empty store is built per
session and copied for each app, on tmpfs when the machine has one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from memhub import MemoryClient, Settings
from memhub.testing import HashEmbedder
from memhub.testing.offline import use_hash_embedder
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore
from memhub_server.hub import LocalHub
from memhub_server.service import MemoryService


@pytest.fixture(scope="session")
def scratch(tmp_path_factory) -> Iterator[Path]:
    """Where stores live: tmpfs if there is one (stores are fsync-heavy), else pytest's tmp."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="memhub-server-tests-", dir=shm))
        yield folder
        shutil.rmtree(folder, ignore_errors=True)
    else:
        yield tmp_path_factory.mktemp("stores")


def _copy(template: Path, path: Path) -> Path:
    # cp keeps the store's preallocated files sparse (under 1 MB); shutil.copytree writes
    # them out in full, ~300 MB per store, all held in RAM on tmpfs until the session ends.
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(template), str(path)], check=True)
    return path


@pytest.fixture(scope="session")
def copy_store() -> Callable[[Path, Path], Path]:
    """``copy_store(empty_store, path)``: a copy of the empty store at ``path``, kept sparse."""
    return _copy


@pytest.fixture(scope="session")
def empty_store(scratch) -> Path:
    path = scratch / "template" / "store"

    async def build() -> None:
        async with MemoryClient(
            storage_dir=path, settings=Settings(), embed=HashEmbedder(), cwd=path.parent
        ):
            pass

    asyncio.run(build())
    return path


@pytest.fixture
def fresh_store(scratch, empty_store) -> Path:
    """A new, empty store of this test's own."""
    return _copy(empty_store, scratch / uuid.uuid4().hex / "store")


def _service(storage_dir: Path) -> MemoryService:
    return MemoryService(Settings(storage_dir=str(storage_dir)), embed=HashEmbedder())


@pytest.fixture
def make_service():
    """``make_service(storage_dir)``: the server's store, embedder and models, with the test
    embedder.
    """
    return _service


class Tenants:
    """Two tenants with one key each, and a client helper per key."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys
        self.a, _ = keys.create("tenant-a")
        self.b, _ = keys.create("tenant-b")


@pytest.fixture(scope="module")
def server(scratch, empty_store) -> Iterator[tuple[TestClient, Tenants]]:
    """One app per test module; tests keep apart by their own user ids (see ``uid``)."""
    store = _copy(empty_store, scratch / uuid.uuid4().hex / "store")
    tenants = Tenants(KeyStore(store / KEYS_FILE))
    app = create_app(service=_service(store), auth=tenants.keys, max_body_bytes=64 * 1024)
    with TestClient(app) as http:
        yield http, tenants


@pytest.fixture
def api(server):
    """Tenant A's requests: ``api.post(path, json=...)`` with A's key."""
    http, tenants = server
    return Caller(http, tenants.a)


@pytest.fixture
def api_b(server):
    http, tenants = server
    return Caller(http, tenants.b)


class Caller:
    def __init__(self, http: TestClient, key: str | None) -> None:
        self.http = http
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    def __getattr__(self, method: str):
        def call(path: str, **kwargs):
            headers = {**self.headers, **kwargs.pop("headers", {})}
            return self.http.request(method.upper(), path, headers=headers, **kwargs)

        return call


@pytest.fixture
def uid() -> str:
    """A user id no other test uses."""
    return f"u-{uuid.uuid4().hex[:10]}"


class HubThread:
    """A ``LocalHub`` on loopback, run by its own event loop in a background thread."""

    def __init__(self, storage_dir: Path) -> None:
        self.hub = LocalHub(Settings(storage_dir=str(storage_dir)), service=_service(storage_dir))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="test-hub", daemon=True)

    def _call(self, coro) -> object:
        future: Future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout=30)

    def __enter__(self) -> LocalHub:
        self._thread.start()
        try:
            self._call(self.hub.start())
        except BaseException:
            self._end()
            raise
        return self.hub

    def __exit__(self, *exc: object) -> None:
        try:
            self._call(self.hub.stop())
        finally:
            self._end()

    def _end(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


@pytest.fixture
def hub_thread():
    """``with hub_thread(storage_dir) as hub:`` runs a hub on loopback for the block."""
    return HubThread


@pytest.fixture
def hub(fresh_store) -> Iterator[LocalHub]:
    with HubThread(fresh_store) as running:
        yield running


# The core CLI finds memhub_server.cli through the "memhub.cli" entry point; until the
# installed core does, the commands are registered the way that entry point would.
@pytest.fixture
def memhub_main(monkeypatch):
    """``memhub_main(argv) -> exit code``: the core CLI with the server's commands."""
    import memhub_server.cli as server_cli
    from memhub.cli import app
    from memhub.errors import UsageError

    try:
        app.build_parser().parse_args(["keys", "list"])
    except UsageError:
        monkeypatch.setattr(app, "COMMAND_MODULES", [*app.COMMAND_MODULES, server_cli])
    use_hash_embedder(monkeypatch)
    return app.main
