"""An ``EdgeStore``'s points as its shards hold them, past the store's codec, for tests of
the stored form itself: what a layout writes (``read_stored``), and a point as an earlier
memhub wrote it, to test that it still reads back (``write_stored``).

Everything else reads and writes through the store's own methods; these two exist only
because the stored form is what such a test is about. Both run on the store's worker,
like every call into its shards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import qdrant_edge as qe

from memhub.store.base import Collection
from memhub.store.edge import EdgeStore


async def read_stored(store: EdgeStore, collection: Collection, point_id: str) -> dict[str, Any]:
    """The payload of ``point_id`` as the shard holds it (facets, packed doc and all)."""

    def read() -> list[qe.Record]:
        return store._shard(collection).retrieve([point_id], True, False)

    records = await store._run(read)
    if not records:
        raise KeyError(f"no point {point_id} in {collection}")
    return dict(records[0].payload or {})


async def write_stored(
    store: EdgeStore, collection: Collection, points: Sequence[qe.Point]
) -> None:
    """Write ``points`` to ``collection``'s shard as given: no codec, no write counted."""
    op = qe.UpdateOperation.upsert_points(list(points))
    await store._run(store._update, collection, op)
