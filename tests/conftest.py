"""Shared fixtures: a real Qdrant Edge store in a temp dir, never the user's home."""

from __future__ import annotations

import subprocess

import pytest

from memhub import MemoryClient
from memhub.store.edge import EdgeStore
from memhub.store.schema import collections
from memhub.store.server import QdrantServerStore
from memhub.testing import HashEmbedder


@pytest.fixture(scope="session")
def _store_templates(tmp_path_factory):
    return tmp_path_factory.mktemp("store-templates"), {}


@pytest.fixture(autouse=True)
def _fast_new_stores(_store_templates, monkeypatch):
    """Create each fresh Edge store by copying an empty one made once per session.

    Creating a Qdrant Edge store syncs to disk once per payload index (seconds on
    a busy disk); copying an empty one (sparse files) takes milliseconds. Test-only.
    """
    root, made = _store_templates
    original = EdgeStore.open

    async def open_from_template(self, vector_size):
        if not self.path.exists():
            template = made.get(vector_size)
            if template is None:
                template = root / f"dim{vector_size}"
                seed = EdgeStore(template)
                await original(seed, vector_size)
                for name in collections():  # the lazily opened ones too
                    await seed.shard_info(name)
                await seed.close()
                made[vector_size] = template
            subprocess.run(["cp", "-a", str(template), str(self.path)], check=True)
        await original(self, vector_size)

    monkeypatch.setattr(EdgeStore, "open", open_from_template)


@pytest.fixture(autouse=True, scope="session")
def _servers_on_threads():
    """Servers opened in the test process keep their rules on threads, where a monkeypatch
    reaches them and no test waits for a worker to start; the worker processes are tested
    by ``tests/core/test_cpu_workers.py`` and through ``memhub serve-api``."""
    from memhub_server import service

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service, "WORKER_PROCESSES", 0)
        yield


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHUB_CONFIG", str(tmp_path / "memhub-config.yaml"))
    for key in (
        "MEMHUB_MODE",
        "MEMHUB_QDRANT_URL_FOR_APP",
        "MEMHUB_LLM_API_KEY",
        "MEMHUB_EMBED_API_KEY",
        "MEMHUB_JEV_API_KEY",
    ):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def storage_dir(tmp_path):
    return tmp_path / "store"


@pytest.fixture
async def client(storage_dir, tmp_path):
    """An async client on a fresh Edge store, with the deterministic test embedder,
    scoped outside any git checkout."""
    async with MemoryClient(storage_dir=storage_dir, embed=HashEmbedder(), cwd=tmp_path) as c:
        yield c


@pytest.fixture(params=["edge", "server"])
async def either(request, client, tmp_path):
    """``client``, and a client on the Qdrant server backend (qdrant-client in memory)."""
    if request.param == "edge":
        yield client
        return
    store = QdrantServerStore(":memory:")
    async with MemoryClient(store=store, embed=HashEmbedder(), cwd=tmp_path) as server_client:
        yield server_client


@pytest.fixture(scope="session")
def e5():
    from memhub.embed.e5 import E5Embedder

    return E5Embedder()
