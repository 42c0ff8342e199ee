"""Valid time: what reading ``as_of`` a date costs against a plain read, and what resolving a
statement's time costs a write.

    python bench/time_bench.py [--size 100000] [--queries 300]

1. Resolving time (``valid_time.valid_fields``, run once per extracted memory of an add):
   p50 and p95 per statement over statements with and without a time named, Chinese and
   English. Target: <= 1 ms p50 per add.
2. ``as_of`` at ``--size`` synthetic memories (bench/_util.py's corpus; every memory has a
   valid time, a fifth of the past ones ended): the store's hybrid query with the plain
   read's filter and with an ``as_of`` read's (more statuses, valid time conditions), the same
   queries in one run, and a whole ``search`` both ways with the test embedder (e5's 11 ms
   per query would hide the difference). Target: as_of p50 <= 1.5x the plain read's.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _util as U  # noqa: E402

TARGET_RESOLVE_MS = 1.0
TARGET_RATIO = 1.5

STATEMENTS = [
    "I moved to Montreal last month",
    "I started learning the guitar yesterday",
    "We got married on 5 March 2023",
    "I quit smoking two years ago",
    "I live in Lisbon",
    "My favourite editor is Neovim",
    "Our team uses PostgreSQL 16 for the main database",
    "I work at Globex as a data engineer",
    "我上个月养了一只狗",
    "我去年在阿里巴巴工作",
    "我三天前开始跑步",
    "我今年三月去了日本旅行",
    "我住在上海",
    "项目用 PostgreSQL 16 做主数据库，不用 MongoDB",
    "我最喜欢的颜色是蓝色",
    "我在字节跳动做产品经理",
]


def resolve_cost(rounds: int) -> dict:
    from memhub.engine.valid_time import valid_fields

    said = "2026-09-15T10:00:00Z"
    for text in STATEMENTS:  # warm the patterns
        valid_fields(text, "fact", said, said)
    ms: list[float] = []
    for _ in range(rounds):
        for text in STATEMENTS:
            t = time.perf_counter_ns()
            valid_fields(text, "fact", said, said)
            ms.append((time.perf_counter_ns() - t) / 1e6)
    return U.summary(ms)


def _with_valid_time(points, rng: random.Random) -> None:
    """Every synthetic memory held from when it was written; a replaced one until a later
    day, as a superseded version's successor would have set it."""
    for p in points:
        pl = p.payload
        pl["valid_from"] = pl["created_at"]
        if pl["status"] != "active":
            end = U._EPOCH + timedelta(days=rng.randint(1, 900))
            pl["valid_to"] = U._iso(end)


async def as_of_cost(size: int, queries: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="memhub-time-bench-"))
    try:
        return await _as_of_cost(root, size, queries)
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _as_of_cost(root: Path, size: int, queries: int) -> dict:
    import numpy as np

    from memhub import MemoryClient
    from memhub.engine.filters import as_of_filter, visible
    from memhub.engine.payload import CHAT_LAYERS
    from memhub.scope import Scope
    from memhub.testing import HashEmbedder

    async with MemoryClient(
        storage_dir=root / "store", embed=HashEmbedder(dim=U.DIM), cwd=root
    ) as c:
        store, bm25 = c.engine.store, c.engine.bm25
        rng = random.Random(5)
        for start, count in U.batches(size, 1024):
            points = U.synthetic_batch(start, count, bm25)
            _with_valid_time(points, rng)
            await store.upsert("memories", points)
        await store.optimize()
        qrng = random.Random(1234)
        vecs = U.unit_vectors(np.random.default_rng(4321), queries).tolist()
        texts = [U.short_query(qrng) for _ in range(queries)]
        users = [f"u{qrng.randrange(U.USERS):03d}" for _ in range(queries)]
        days = [U._iso(U._EPOCH + timedelta(days=qrng.randint(30, 700))) for _ in range(queries)]
        plain_ms, as_of_ms, hits = [], [], [0, 0]
        for warm in (True, False):
            for i in range(queries):
                scope = Scope(tenant=U.TENANT, user_id=users[i], app_id=U.APP_ID)
                _, statuses, when = as_of_filter(days[i])
                plain = visible(scope, CHAT_LAYERS)
                dated = visible(scope, CHAT_LAYERS, statuses=statuses).and_(*when)
                sparse = bm25.query(texts[i])
                for where, ms, k in ((plain, plain_ms, 0), (dated, as_of_ms, 1)):
                    t = time.perf_counter_ns()
                    found = await store.hybrid_query(
                        vecs[i], sparse, where, limit=10, prefetch_limit=50, rrf_k=2
                    )
                    if not warm:
                        ms.append((time.perf_counter_ns() - t) / 1e6)
                        hits[k] += len(found)
        search_plain, search_as_of = [], []
        for warm in (True, False):
            for i in range(min(queries, 100)):
                for as_of, ms in ((None, search_plain), (days[i], search_as_of)):
                    t = time.perf_counter_ns()
                    await c.search(texts[i], user_id=users[i], as_of=as_of)
                    if not warm:
                        ms.append((time.perf_counter_ns() - t) / 1e6)
    return {
        "store_plain": U.summary(plain_ms),
        "store_as_of": U.summary(as_of_ms),
        "search_plain": U.summary(search_plain),
        "search_as_of": U.summary(search_as_of),
        "hits": [h / queries for h in hits],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    r = resolve_cost(args.rounds)
    print("== valid time: resolving a statement's time (valid_time.valid_fields) ==")
    print(
        f"per statement  p50 {r['p50'] * 1000:.1f} us  p95 {r['p95'] * 1000:.1f} us  "
        f"(target <= {TARGET_RESOLVE_MS:.1f} ms p50 per add: "
        f"{'met' if r['p50'] <= TARGET_RESOLVE_MS else 'MISSED'})"
    )
    f = asyncio.run(as_of_cost(args.size, args.queries))
    print(f"== valid time: as_of read at {args.size:,} memories ==")
    for what in ("store", "search"):
        plain, dated = f[f"{what}_plain"], f[f"{what}_as_of"]
        ratio = dated["p50"] / plain["p50"]
        print(
            f"{what:<6} plain p50 {plain['p50']:.2f} ms p95 {plain['p95']:.2f} | "
            f"as_of p50 {dated['p50']:.2f} ms p95 {dated['p95']:.2f} | ratio {ratio:.2f}x "
            f"(target <= {TARGET_RATIO}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'})"
        )
    print(f"mean hits per store query: plain {f['hits'][0]:.1f}, as_of {f['hits'][1]:.1f}")


if __name__ == "__main__":
    main()
