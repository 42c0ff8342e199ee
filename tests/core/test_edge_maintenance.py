"""Qdrant Edge has no background optimizer: the store indexes what it is written as it grows."""

from __future__ import annotations

import numpy as np

from memhub.store.base import StoredPoint
from memhub.store.edge import _OPTIMIZE_EVERY, EdgeStore


async def test_a_growing_store_gets_its_vector_index_without_an_explicit_optimize(tmp_path):
    store = EdgeStore(tmp_path / "s")
    await store.open(384)
    rng = np.random.default_rng(0)
    written = 0
    try:
        while written < 4 * _OPTIMIZE_EVERY:  # past Edge's indexing threshold (~6.5k 384-d vectors)
            vectors = rng.standard_normal((500, 384)).astype(np.float32)
            await store.upsert(
                "memories",
                [
                    StoredPoint(
                        f"00000000-0000-0000-0000-{written + i:012d}", {"layer": "fact"}, v.tolist()
                    )
                    for i, v in enumerate(vectors)
                ],
            )
            written += 500
        # on the store's worker, so behind the index build the writes queued there
        info = await store._run(lambda: store._shard("memories").info())
        assert info.points_count == written
        assert (
            info.indexed_vectors_count >= written // 2
        )  # built in passing, by the writes themselves
    finally:
        await store.close()
