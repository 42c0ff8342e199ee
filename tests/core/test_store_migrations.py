"""The store's layout version: a store written before versions were (the committed fixture
``tests/fixtures/store_v1``, made by memhub as it was then) opens, is migrated once and
answers as before; the steps run in order, each recorded; a store newer than the code is
refused with nothing changed, on both backends."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient

from memhub import MemoryClient
from memhub.errors import MemHubError
from memhub.store import _migrations
from memhub.store.base import Match, Where, every
from memhub.store.edge import EdgeStore
from memhub.store.server import QdrantServerStore
from memhub.testing import HashEmbedder

FIXTURE = Path(__file__).parents[1] / "fixtures" / "store_v1"
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())
DEMO = {"user_id": "alice", "app_id": "demo"}


def _unpacked(tmp_path: Path) -> Path:
    with tarfile.open(FIXTURE / "store.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "store"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _recorded(folder: Path) -> int:
    return json.loads((folder / _migrations.VERSION_FILE).read_text())["version"]


async def test_a_store_written_before_versions_opens_migrated_and_answers_as_before(
    tmp_path, monkeypatch
):
    store = _unpacked(tmp_path)
    assert not (store / _migrations.VERSION_FILE).exists()  # as the old memhub left it
    client = MemoryClient(mode="dual", storage_dir=store, embed=HashEmbedder(dim=16), cwd=tmp_path)
    async with client:
        assert client.engine.store.layout_version() == _migrations.LATEST
        assert _recorded(store) == _migrations.LATEST

        found = await client.recall("what is alice allergic to", **DEMO)
        assert found.atoms[0].content == "alice is allergic to peanuts"
        got = await client.get(EXPECTED["allergy"], user_id="alice")
        assert got.content == "alice is allergic to peanuts"
        lives = [a.content for a in (await client.recall("where does alice live", **DEMO)).atoms]
        assert "alice lives in Porto" in lives and "alice lives in Lisbon" not in lives
        history = await client.history(EXPECTED["replaced"], **DEMO)
        assert history.current.status == "superseded"
        assert history.relations.superseded_by == [EXPECTED["replacement"]]
        sealed = await client.recall("science fiction", **DEMO)
        assert all(a.atom_id != EXPECTED["sealed"] for a in sealed.atoms)
        bobs = (await client.recall("Quimbleton", user_id="bob", app_id="demo")).atoms
        assert bobs[0].content == "bob has a dog called Quimbleton"

        thread = Where(must=(Match("thread_id", EXPECTED["thread"]),))
        assert await client.records.count("checkpoints", thread) > 0
        forgot = await client.forget_user("alice")
        assert forgot.threads == 1 and forgot.tombstoned >= 10
        assert await client.records.count("checkpoints", thread) == 0
        assert await client.records.count("checkpoint_writes", thread) == 0
        assert (await client.recall("peanuts", **DEMO)).atoms == []
        assert (await client.recall("Quimbleton", user_id="bob", app_id="demo")).atoms

    migrated: list[Path] = []
    monkeypatch.setattr(
        EdgeStore, "rewrite_outdated_shards", lambda self: migrated.append(self.path)
    )
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(dim=16), cwd=tmp_path) as again:
        assert (await again.recall("Quimbleton", user_id="bob", app_id="demo")).atoms
    assert migrated == [] and _recorded(store) == _migrations.LATEST  # migrated once only


async def test_the_steps_run_in_order_each_recorded_and_a_failed_one_runs_again(
    tmp_path, monkeypatch
):
    path = tmp_path / "s"
    store = EdgeStore(path)
    await store.open(4)
    await store.close()
    _migrations.record_edge_version(path, 1)
    ran: list[tuple[str, int]] = []
    fail = {"b": True}

    def step(name: str):
        def run(s: EdgeStore) -> None:
            ran.append((name, _recorded(s.path)))
            if fail.get(name):
                raise RuntimeError(f"{name} broke")

        return run

    monkeypatch.setattr(_migrations, "EDGE", (step("a"), step("b"), step("c")))
    monkeypatch.setattr(_migrations, "LATEST", 4)
    with pytest.raises(RuntimeError, match="b broke"):
        await EdgeStore(path).open(4)
    assert ran == [("a", 1), ("b", 2)] and _recorded(path) == 2  # a's version was recorded

    fail.clear()
    store = EdgeStore(path)
    await store.open(4)  # the lock of the failed open was released
    try:
        assert ran[2:] == [("b", 2), ("c", 3)]  # from the step that failed on
        assert _recorded(path) == 4 and store.layout_version() == 4
    finally:
        await store.close()


async def test_a_store_newer_than_the_code_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "s"
    store = EdgeStore(path)
    await store.open(4)
    await store.close()
    _migrations.record_edge_version(path, _migrations.LATEST + 1)
    before = _files(path)
    with pytest.raises(MemHubError, match="newer than this memhub"):
        await EdgeStore(path).open(4)
    assert _files(path) == before
    client = MemoryClient(storage_dir=path, embed=HashEmbedder(dim=4), cwd=tmp_path)
    with pytest.raises(MemHubError, match="upgrade memhub"):
        await client.recall("anything", user_id="u")  # opens the store first
    await client.aclose()
    assert _files(path) == before


async def test_a_server_store_records_its_version_per_prefix_and_refuses_a_newer_one():
    qdrant = AsyncQdrantClient(location=":memory:")
    store = QdrantServerStore(":memory:", client=qdrant, prefix="one")
    await store.open(4)
    assert store.layout_version() == _migrations.LATEST
    meta = await qdrant.get_collection("one_meta")
    assert meta.config.metadata == {"memhub_layout": _migrations.LATEST}

    await qdrant.update_collection("one_meta", metadata={"memhub_layout": 1})  # an older one
    again = QdrantServerStore(":memory:", client=qdrant, prefix="one")
    await again.open(4)
    assert again.layout_version() == _migrations.LATEST
    assert (await qdrant.get_collection("one_meta")).config.metadata == {
        "memhub_layout": _migrations.LATEST
    }

    await qdrant.update_collection("one_meta", metadata={"memhub_layout": _migrations.LATEST + 1})
    before = {c.name for c in (await qdrant.get_collections()).collections}
    with pytest.raises(MemHubError, match="newer than this memhub"):
        await QdrantServerStore(":memory:", client=qdrant, prefix="one").open(4)
    assert {c.name for c in (await qdrant.get_collections()).collections} == before
    other = QdrantServerStore(":memory:", client=qdrant, prefix="two")  # its own version
    await other.open(4)
    assert other.layout_version() == _migrations.LATEST
    await qdrant.close()


async def test_the_oldest_layout_is_rewritten_once_by_the_migration(tmp_path):
    from test_edge_upgrade import _old_store

    _old_store(tmp_path / "s", 50)
    store = EdgeStore(tmp_path / "s")
    await store.open(8)
    try:
        assert _recorded(tmp_path / "s") == _migrations.LATEST
        schema = (await store.shard_info("memories")).indexes
        assert "agent_id" not in schema and "_facets" in schema  # the per-key indexes went
        assert len(await every(store, "memories", Where(must=(Match("user_id", "u1"),)))) == 17
    finally:
        await store.close()
