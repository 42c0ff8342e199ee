"""Tests reach the deterministic embedder through ``memhub.testing.offline``; no production
entry point reads a switch for it (there was an environment variable once)."""

from __future__ import annotations

from pathlib import Path

from memhub import MemoryClient
from memhub.testing import HashEmbedder
from memhub.testing.offline import use_hash_embedder

ROOT = Path(__file__).resolve().parents[2]


def test_no_production_code_reads_a_test_switch():
    sources = [
        p for top in ("core/src", "adapters", "integrations") for p in (ROOT / top).rglob("*.py")
    ]
    readers = [str(p.relative_to(ROOT)) for p in sources if "MEMHUB_TEST_" in p.read_text()]
    assert readers == []


async def test_a_client_built_without_an_embedder_gets_the_hash_embedder(tmp_path, monkeypatch):
    use_hash_embedder(monkeypatch)
    async with MemoryClient(storage_dir=tmp_path / "s", cwd=tmp_path) as client:
        assert client.engine.embedder.name == HashEmbedder().name
        await client.memorize("Deploys go through the release branch.")
        assert (await client.recall("release branch")).atoms
