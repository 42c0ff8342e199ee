"""The cost of ``Engine.update``: a conditional change of one memory's payload.

    python bench/update_bench.py [--n 20000] [--updates 400]

Every correction, govern step and activation of a new version goes through it. The
store cannot say whether a conditional write applied, so an update is a write plus a
read. Two forms are timed on the same store, alternating, in one run:

* ``upsert``: read the point with its vectors, upsert the whole point conditional on
  ``rev``, read it back (three round trips; the form memhub used before);
* ``replace_payload``: overwrite the payload conditional on ``rev``, read it back (two
  round trips; the vectors stay where they are). ``Engine.update`` uses this one.

Both run against Qdrant Edge (the default store) and qdrant-client's local mode, the
Python stand-in for a server that the tests use. Local mode resolves the filter of a
payload overwrite by scanning every point, so there the new form is slower and grows
with the store; a Qdrant server resolves ``has_id`` from its id index, and each round
trip saved is a network round trip. No server runs here to measure that.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _util as U  # noqa: E402  (the bench helpers sit beside this file)

from memhub.embed.bm25 import Bm25Encoder  # noqa: E402
from memhub.store.base import Match, MemoryStore, StoredPoint, Where  # noqa: E402


async def by_upsert(store: MemoryStore, pid: str, patch: dict) -> None:
    [point] = await store.retrieve("memories", [pid], with_vectors=True)
    rev = point.payload["rev"]
    new = {**point.payload, **patch, "rev": rev + 1}
    only_if = Where(must=(Match("rev", rev),))
    await store.upsert(
        "memories", [StoredPoint(pid, new, point.dense, point.sparse)], only_if=only_if
    )
    [after] = await store.retrieve("memories", [pid])
    assert after.payload["rev"] == rev + 1


async def by_replace_payload(store: MemoryStore, pid: str, payload: dict, patch: dict) -> None:
    rev = payload["rev"]
    new = {**payload, **patch, "rev": rev + 1}
    await store.replace_payload("memories", pid, new, only_if=Where(must=(Match("rev", rev),)))
    [after] = await store.retrieve("memories", [pid])
    assert after.payload["rev"] == rev + 1


async def run(store: MemoryStore, n: int, updates: int) -> dict[str, list[float]]:
    await store.open(U.DIM)
    bm25 = Bm25Encoder()
    ids = []
    for start, count in U.batches(n, 512):
        points = U.synthetic_batch(start, count, bm25)
        await store.upsert("memories", points)
        ids += [p.id for p in points]
    rng = random.Random(5)
    times: dict[str, list[float]] = {"upsert": [], "replace_payload": []}
    for i in range(updates):
        pid = rng.choice(ids)
        patch = {"exposure": "hot" if i % 2 else "warm"}
        for form in ("upsert", "replace_payload") if i % 2 else ("replace_payload", "upsert"):
            t = time.perf_counter()
            if form == "upsert":
                await by_upsert(store, pid, patch)
            else:  # the caller holds the record it read (no vectors): not timed
                [held] = await store.retrieve("memories", [pid])
                t = time.perf_counter()
                await by_replace_payload(store, pid, held.payload, patch)
            times[form].append((time.perf_counter() - t) * 1000)
    await store.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000, help="memories in the store")
    ap.add_argument("--updates", type=int, default=400, help="updates timed per form")
    args = ap.parse_args()

    from qdrant_client import AsyncQdrantClient

    from memhub.store.edge import EdgeStore
    from memhub.store.server import QdrantServerStore

    print(f"Engine.update forms at {args.n} memories, {args.updates} updates each")
    print(f"{'store':<22}{'form':<18}{'trips':>6}{'p50 ms':>9}{'p95 ms':>9}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        stores = {
            "qdrant edge": EdgeStore(Path(tmp) / "edge"),
            "qdrant-client local": QdrantServerStore(
                ":memory:", client=AsyncQdrantClient(location=":memory:")
            ),
        }
        for name, store in stores.items():
            times = asyncio.run(run(store, args.n, args.updates))
            base = U.percentile(times["upsert"], 50)
            for form, trips in (("upsert", 3), ("replace_payload", 2)):
                p50, p95 = U.percentile(times[form], 50), U.percentile(times[form], 95)
                print(f"{name:<22}{form:<18}{trips:>6}{p50:>9.3f}{p95:>9.3f}{p50 / base:>7.2f}x")


if __name__ == "__main__":
    main()
