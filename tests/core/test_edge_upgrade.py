"""A store written by an earlier memhub (one payload index per key, no facets) opens,
answers the same filters, and is moved to the facets layout once."""

from __future__ import annotations

import qdrant_edge as qe

from memhub.store.base import IsEmpty, Match, MatchAny, StoredPoint, Where
from memhub.store.edge import EdgeStore, _config
from memhub.store.facets import FACETS
from memhub.store.schema import INDEXES

KINDS = (
    ("keyword", qe.PayloadSchemaType.Keyword),
    ("integer", qe.PayloadSchemaType.Integer),
    ("datetime", qe.PayloadSchemaType.Datetime),
)


def _old_store(path, n: int) -> None:
    """The layout before facets: every key of the schema its own index."""
    for name in ("memories", "meta"):
        shard = qe.EdgeShard.create(str(path / name), _config(name, 8))
        spec = INDEXES[name]
        for attr, kind in KINDS:
            for key in getattr(spec, attr):
                shard.update(qe.UpdateOperation.create_field_index(key, kind))
        if name == "memories":
            points = [
                qe.Point(
                    f"00000000-0000-0000-0000-{i:012d}",
                    {"dense": [1.0] + [0.0] * 7},
                    {
                        "user_id": f"u{i % 3}",
                        "layer": "fact",
                        "rev": i,
                        "tags": ["x"],
                        **({"agent_id": "a"} if i % 2 else {}),
                    },
                )
                for i in range(n)
            ]
            shard.update(qe.UpdateOperation.upsert_points(points))
        shard.flush()
        shard.close()


async def test_an_old_store_answers_the_same_filters_after_the_upgrade(tmp_path):
    _old_store(tmp_path / "s", 700)
    store = EdgeStore(tmp_path / "s")
    await store.open(8)
    try:
        count = store.count
        assert await count("memories", Where(must=(Match("user_id", "u1"),))) == 233
        assert await count("memories", Where(must=(IsEmpty("agent_id"),))) == 350
        assert (
            await count(
                "memories", Where(must=(MatchAny("user_id", ("u0", "u2")), Match("rev", 3)))
            )
            == 1
        )
        # a key that is not in the schema still filters (on the payload itself)
        assert await count("memories", Where(must=(Match("tags", "x"),))) == 700
        schema = (await store.shard_info("memories")).indexes
        assert FACETS in schema and "agent_id" not in schema and "created_at" in schema
        got = await store.retrieve("memories", ["00000000-0000-0000-0000-000000000005"])
        assert FACETS not in got[0].payload and got[0].payload["agent_id"] == "a"
        await store.upsert(
            "memories",
            [
                StoredPoint(
                    "00000000-0000-0000-0000-000000000005",
                    {"user_id": "u9", "layer": "fact", "rev": 99},
                )
            ],
        )
        assert (
            await count("memories", Where(must=(Match("user_id", "u9"), IsEmpty("agent_id")))) == 1
        )
    finally:
        await store.close()
