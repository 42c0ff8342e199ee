"""Qdrant Edge has no background optimizer: the store indexes what it is written as it grows."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from memhub.store import _readahead, edge
from memhub.store.base import StoredPoint
from memhub.store.edge import EdgeStore

EVERY = 2000  # as small as the test allows: past Edge's indexing threshold (~6.5k 384-d vectors)


async def _write(store: EdgeStore, start: int, count: int, rng: np.random.Generator) -> None:
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    await store.upsert(
        "memories",
        [
            StoredPoint(f"00000000-0000-0000-0000-{start + i:012d}", {"layer": "fact"}, v.tolist())
            for i, v in enumerate(vectors)
        ],
    )


async def test_a_growing_store_gets_its_vector_index_without_an_explicit_optimize(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(edge, "_OPTIMIZE_EVERY", EVERY)
    store = EdgeStore(tmp_path / "s")
    await store.open(384)
    rng = np.random.default_rng(0)
    written = 0
    try:
        opens = (await store.shard_info("memories")).opens
        while written < 4 * EVERY:
            await _write(store, written, 500, rng)
            written += 500
        # on the store's worker, so behind the index build the writes queued there
        info = await store.shard_info("memories")
        assert info.points == written
        assert info.indexed_vectors >= written // 2  # built in passing, by the writes themselves
        # after a build the shard was opened again (what the build held is let go) ...
        assert info.opens > opens
        # ... and reads and writes go on as before
        await _write(store, written, 10, rng)
        ids = [f"00000000-0000-0000-0000-{i:012d}" for i in (0, written - 1, written + 9)]
        assert {p.id for p in await store.retrieve("memories", ids)} == set(ids)
    finally:
        await store.close()


async def test_a_long_bulk_block_still_indexes_in_passing(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    # bulk() defers builds, but not without bound: what waits unindexed is held in RAM
    monkeypatch.setattr(edge, "_OPTIMIZE_EVERY", 1)  # not what applies inside bulk()
    monkeypatch.setattr(edge, "_BULK_OPTIMIZE_EVERY", EVERY)
    store = EdgeStore(tmp_path / "s")
    await store.open(384)
    rng = np.random.default_rng(1)
    try:
        async with store.bulk():
            await _write(store, 0, 500, rng)
            info = await store.shard_info("memories")
            assert info.indexed_vectors == 0  # fewer than _BULK_OPTIMIZE_EVERY: no build
            written = 500
            while written < 4 * EVERY:
                await _write(store, written, 500, rng)
                written += 500
            info = await store.shard_info("memories")
            assert info.indexed_vectors >= written // 2
    finally:
        await store.close()


async def test_a_prefetch_reads_what_a_scroll_reads_and_the_vectors_only_when_asked(tmp_path):
    store = EdgeStore(tmp_path / "s")
    await store.open(384)
    try:
        await _write(store, 0, 300, np.random.default_rng(0))
        await store.optimize()
        await store.prefetch("memories", vectors=True)  # on the worker, the shard open
        shutil.rmtree(tmp_path / "s" / "checkpoints")  # as in a store that never had one
        await store.prefetch("checkpoints")  # nothing to read, and no shard made for it
        assert not (tmp_path / "s" / "checkpoints").exists()
    finally:
        await store.close()
    shard = tmp_path / "s" / "memories"
    plain, full = _readahead.scrolled_files(shard, False), _readahead.scrolled_files(shard, True)

    def kinds(paths: list) -> set[str]:  # segments/<segment>/<kind>/...
        return {p.relative_to(shard / "segments").parts[1] for p in paths}

    assert {"payload_storage", "payload_index"} <= kinds(plain)
    assert not any(k.startswith("vector_storage") for k in kinds(plain))
    assert "vector_storage-dense" in kinds(full) and set(plain) < set(full)
    assert not any("quantized" in p.name for p in full)
    assert 0 < _readahead.read_ahead(plain, 1 << 40) <= sum(p.stat().st_size for p in plain)
    assert _readahead.read_ahead(plain, 4096) == 4096
