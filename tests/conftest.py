"""Shared fixtures: a real Qdrant Edge store in a temp dir, never the user's home."""

from __future__ import annotations

import pytest

from memhub import MemoryClient
from memhub.testing import HashEmbedder


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHUB_CONFIG", str(tmp_path / "memhub-config.yaml"))
    for key in ("MEMHUB_MODE", "MEMHUB_QDRANT_URL_FOR_APP", "MEMHUB_LLM_API_KEY", "MEMHUB_EMBED_API_KEY", "MEMHUB_JEV_API_KEY"):
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


@pytest.fixture(scope="session")
def e5():
    from memhub.embed.e5 import E5Embedder

    return E5Embedder()
