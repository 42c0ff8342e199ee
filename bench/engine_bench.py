"""memhub on Qdrant Edge vs qdrant-client local mode: latency, open time, memory.

    python bench/engine_bench.py [--sizes 1000,10000,100000] [--quick] [--json OUT]

Each engine runs in its own subprocess (so RSS is per engine); the parent prints
one side-by-side table with the ratio baseline/memhub and the targets. See
bench/README.md for what each figure measures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Targets (memhub only): figure key, comparison, limit, where it applies.
TARGETS = {
    "recall_p50": 25.0,  # ms, e2e with the real embedder, uncached query, @100k
    "store_p50": 2.0,  # ms, store-only hybrid query @100k
    "memorize_p50": 40.0,  # ms
    "open_s": 0.5,  # s, reopen the largest store
    "rss_mb": 400.0,  # MB
}
TARGET_SIZE = 100_000
# At a million memories (``--scale``: that size alone, memhub only): issue 16's targets.
SCALE_SIZE = 1_000_000
SCALE_TARGETS = {
    "recall_p50": 35.0,
    "store_p50": 10.0,
    "open_s": 1.0,
    "rss_mb": 1000.0,  # serving
    "load_s": 600.0,  # bulk load, 10 min
    "load_rss_mb": 2000.0,  # the loading process
}

LIMIT, PREFETCH, RRF_K = 10, 50, 2  # as recall(limit=10): prefetch max(50, 5*limit), k=2


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# =================================================================================
# worker: one engine, in its own process
# =================================================================================


class TimedEmbedder:
    """Delegates to the real embedder and adds up the time spent embedding."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name, self.dim, self.similarity_floor = inner.name, inner.dim, inner.similarity_floor
        self.query_ms = 0.0
        self.passage_ms = 0.0

    async def embed_query(self, text: str) -> list[float]:
        t = time.perf_counter_ns()
        try:
            return await self.inner.embed_query(text)
        finally:
            self.query_ms += (time.perf_counter_ns() - t) / 1e6

    async def embed_passages(self, texts):
        t = time.perf_counter_ns()
        try:
            return await self.inner.embed_passages(texts)
        finally:
            self.passage_ms += (time.perf_counter_ns() - t) / 1e6


def make_store(engine: str, path: Path):
    url = os.environ.get("MEMHUB_BENCH_QDRANT_URL")
    if engine == "edge" and url:  # the same load and queries on a Qdrant server (bench/README.md)
        from memhub.store.server import QdrantServerStore

        api_key = os.environ.get("MEMHUB_BENCH_QDRANT_API_KEY")
        store = QdrantServerStore(url, api_key=api_key, prefix=f"bench_{path.name}")
        return store, f"QdrantServerStore at {url}"
    if engine == "edge":
        from memhub.store.edge import EdgeStore

        return EdgeStore(path), "EdgeStore (qdrant-edge)"
    from qdrant_client import AsyncQdrantClient

    from memhub.store.server import QdrantServerStore

    # local mode on disk: the client is injected (the store leaves closing it to us)
    client = AsyncQdrantClient(path=str(path))
    store = QdrantServerStore(str(path), client=client)
    close = store.close

    async def close_all() -> None:
        await close()
        await client.close()

    store.close = close_all
    return store, "QdrantServerStore on AsyncQdrantClient(path=...) (qdrant-client local mode)"


def make_client(engine: str, path: Path, embedder, cwd: Path):
    from memhub.client import MemoryClient
    from memhub.config import Settings

    store, impl = make_store(engine, path)
    settings = Settings.load(storage_dir=str(path))  # MEMHUB_CONFIG points at a temp file
    return MemoryClient(settings=settings, embed=embedder, store=store, cwd=cwd), impl


def within_budget(t0: float, budget: float, done: int, minimum: int) -> bool:
    return done < minimum or time.perf_counter() - t0 < budget


async def bench_size(engine: str, n: int, root: Path, cfg: argparse.Namespace, e5) -> dict:
    import _util as U
    import numpy as np

    from memhub.engine.filters import visible
    from memhub.engine.hmg import RECALL_LAYERS
    from memhub.scope import Scope

    path = root / f"n{n}"
    cwd = root / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    emb = TimedEmbedder(e5())  # a fresh embedder per size: an empty query cache
    client, impl = make_client(engine, path, emb, cwd)
    out: dict = {"n": n, "impl": impl, "loadavg_start": os.getloadavg()[0]}
    t_all = time.perf_counter()
    await client.open()
    store, bm25 = client.engine.store, client.engine.bm25

    # -- bulk load ---------------------------------------------------------------
    from memhub.progress import bar

    upsert_ns = gen_ns = 0
    loading = bar()  # count, rate and ETA when stderr is a terminal
    loading.start(f"{engine} load n={n}", n)
    for start, count in U.batches(n, cfg.batch):
        t = time.perf_counter_ns()
        points = U.synthetic_batch(start, count, bm25)
        t2 = time.perf_counter_ns()
        await store.upsert("memories", points)
        upsert_ns += time.perf_counter_ns() - t2
        gen_ns += t2 - t
        loading.advance(count)
    loading.close()
    out["load_s"] = upsert_ns / 1e9
    out["gen_s"] = gen_ns / 1e9
    out["rss_after_load"] = U.rss_mb()
    log(
        f"{engine} n={n}: loaded in {out['load_s']:.2f} s "
        f"(data generation {out['gen_s']:.2f} s, not counted)"
    )
    if engine == "edge" and not cfg.no_optimize and hasattr(store, "optimize"):
        t = time.perf_counter_ns()
        await store.optimize()
        out["optimize_s"] = (time.perf_counter_ns() - t) / 1e9
        log(f"{engine} n={n}: optimize (index build) {out['optimize_s']:.2f} s")
        out["rss_after_optimize"] = U.rss_mb()

    # -- store-only hybrid query -------------------------------------------------
    import random

    rng = random.Random(1234)
    # Steady state: a fresh segment's files are paged in on first touch (~3 ms per query
    # for the first pass over the users at 100k; the cold case is "first store query after
    # open"). Local mode keeps points as Python objects: nothing to warm, ~1 s per query.
    warmup = cfg.warmup if engine == "edge" else min(cfg.warmup, 20)
    total = warmup + cfg.queries
    vecs = U.unit_vectors(np.random.default_rng(4321), total).tolist()
    texts = [U.short_query(rng) for _ in range(total)]
    users = [f"u{rng.randrange(U.USERS):03d}" for _ in range(total)]
    sw, hits_n = U.Stopwatch(), []
    t0 = time.perf_counter()
    cpu0 = None
    for i in range(total):
        where = visible(Scope(tenant=U.TENANT, user_id=users[i], app_id=U.APP_ID), RECALL_LAYERS)
        sparse = bm25.query(texts[i])
        if i < warmup:
            await store.hybrid_query(
                vecs[i], sparse, where, limit=LIMIT, prefetch_limit=PREFETCH, rrf_k=RRF_K
            )
            continue
        if cpu0 is None:
            cpu0 = U.cpu_s()
        with sw:
            hits = await store.hybrid_query(
                vecs[i], sparse, where, limit=LIMIT, prefetch_limit=PREFETCH, rrf_k=RRF_K
            )
        hits_n.append(len(hits))
        if not within_budget(t0, cfg.budget, len(sw.ms), cfg.min_samples):
            break
    out["store"] = U.summary(sw.ms)
    out["store"]["cpu_ms"] = (
        (U.cpu_s() - cpu0) * 1000 / max(1, len(sw.ms))
    )  # process CPU, all threads
    out["rss_after_store_queries"] = U.rss_mb()
    out["store"]["mean_hits"] = sum(hits_n) / max(1, len(hits_n))
    log(
        f"{engine} n={n}: store query p50 {out['store']['p50']:.3f} ms "
        f"p95 {out['store']['p95']:.3f} ms "
        f"CPU {out['store']['cpu_ms']:.3f} ms/query "
        f"({len(sw.ms)} queries, {out['store']['mean_hits']:.1f} hits)"
    )

    # -- memorize (real embedder, full pipeline) ---------------------------------
    await emb.embed_query("预热 warmup")  # load the model outside the timings
    await emb.embed_passages(["预热 warmup passage"])
    facts = U.real_facts(cfg.facts)
    sw, effects = U.Stopwatch(), {}
    emb.query_ms = emb.passage_ms = 0.0
    t0 = time.perf_counter()
    for fact in facts:
        with sw:
            res = await client.memorize(fact, user_id=U.REAL_USER)
        effects[res.effect] = effects.get(res.effect, 0) + 1
        if not within_budget(t0, cfg.budget, len(sw.ms), cfg.min_samples):
            break
    out["memorize"] = U.summary(sw.ms)
    out["rss_after_memorize"] = U.rss_mb()
    out["memorize"]["effects"] = effects
    out["memorize"]["embed_ms_mean"] = (emb.query_ms + emb.passage_ms) / max(1, len(sw.ms))
    log(
        f"{engine} n={n}: memorize p50 {out['memorize']['p50']:.1f} ms ({effects}), "
        f"embedding {out['memorize']['embed_ms_mean']:.1f} ms/call"
    )

    # -- recall end to end -------------------------------------------------------
    queries = U.real_queries(cfg.recall_warmup + cfg.queries)
    fact_set = set(facts)
    for q in queries[: cfg.recall_warmup]:
        await client.recall(q, user_id=U.REAL_USER)
    measured = queries[cfg.recall_warmup :]
    sw, embed_ms, found = U.Stopwatch(), [], 0
    t0 = time.perf_counter()
    for q in measured:
        emb.query_ms = 0.0
        with sw:
            res = await client.recall(q, user_id=U.REAL_USER)
        embed_ms.append(emb.query_ms)
        found += any(a.content in fact_set for a in res.atoms[:3])
        if not within_budget(t0, cfg.budget, len(sw.ms), cfg.min_samples):
            break
    done = len(sw.ms)
    out["recall"] = U.summary(sw.ms)
    out["recall"]["embed_p50"] = U.percentile(embed_ms, 50)
    out["recall"]["rest_p50"] = U.percentile(
        [a - b for a, b in zip(sw.ms, embed_ms, strict=False)], 50
    )
    out["recall"]["real_fact_top3"] = found / max(1, done)
    sw = U.Stopwatch()
    for q in measured[:done]:  # the same queries again: now served from the query-vector cache
        with sw:
            await client.recall(q, user_id=U.REAL_USER)
    out["recall_cached"] = U.summary(sw.ms)
    log(
        f"{engine} n={n}: recall p50 {out['recall']['p50']:.1f} ms "
        f"(embed {out['recall']['embed_p50']:.1f}, "
        f"rest {out['recall']['rest_p50']:.2f}), cached p50 {out['recall_cached']['p50']:.2f} ms"
    )
    out["rss_open"] = U.rss_mb()  # while the store of this size is open
    await client.aclose()
    out["total_s"] = time.perf_counter() - t_all
    out["loadavg_end"] = os.getloadavg()[0]
    return out


async def serve(cfg: argparse.Namespace) -> dict:
    """A fresh process on the existing largest store, as an agent would use it after a restart:
    construct the client and open it, recall with the real embedder, then read RSS."""
    import random

    import _util as U
    import numpy as np

    from memhub.embed.e5 import E5Embedder
    from memhub.engine.filters import visible
    from memhub.engine.hmg import RECALL_LAYERS
    from memhub.scope import Scope

    warnings.filterwarnings("ignore", message="Payload indexes have no effect")
    n = int(cfg.sizes)
    root = Path(cfg.data)
    path, cwd = root / f"n{n}", root / "cwd"
    out: dict = {"n": n, "rss_start": U.rss_mb()}
    emb = TimedEmbedder(E5Embedder())
    t = time.perf_counter_ns()
    client, _ = make_client(cfg.serve, path, emb, cwd)
    await client.open()
    out["open_s"] = (time.perf_counter_ns() - t) / 1e9
    store, bm25 = client.engine.store, client.engine.bm25
    vec = U.unit_vectors(np.random.default_rng(77), 1)[0].tolist()
    where = visible(Scope(tenant=U.TENANT, user_id="u007", app_id=U.APP_ID), RECALL_LAYERS)
    sparse = bm25.query(U.short_query(random.Random(77)))
    t = time.perf_counter_ns()
    await store.hybrid_query(vec, sparse, where, limit=LIMIT, prefetch_limit=PREFETCH, rrf_k=RRF_K)
    out["first_query_ms"] = (time.perf_counter_ns() - t) / 1e6
    # recall with distinct queries (other seed than the loading run: nothing is cached anyway)
    queries = U.real_queries(cfg.recall_warmup + cfg.serve_queries, seed=17)
    for q in queries[: cfg.recall_warmup]:
        await client.recall(q, user_id=U.REAL_USER)
    sw, embed_ms = U.Stopwatch(), []
    t0 = time.perf_counter()
    for q in queries[cfg.recall_warmup :]:
        emb.query_ms = 0.0
        with sw:
            await client.recall(q, user_id=U.REAL_USER)
        embed_ms.append(emb.query_ms)
        if not within_budget(t0, cfg.budget, len(sw.ms), cfg.min_samples):
            break
    out["recall"] = U.summary(sw.ms)
    out["recall"]["embed_p50"] = U.percentile(embed_ms, 50)
    out["rss"] = U.rss_mb()
    await client.aclose()
    reopens = []
    for _ in range(cfg.reopens):
        t = time.perf_counter_ns()
        client, _ = make_client(cfg.serve, path, E5Embedder(), cwd)
        await client.open()
        reopens.append((time.perf_counter_ns() - t) / 1e9)
        await client.aclose()
    out["reopen_p50_s"] = U.percentile(reopens, 50)
    log(
        f"{cfg.serve} serve n={n}: open {out['open_s']:.3f} s (reopen "
        f"p50 {out['reopen_p50_s']:.3f} s), first query "
        f"{out['first_query_ms']:.2f} ms, recall p50 {out['recall']['p50']:.1f} ms, "
        f"RSS {out['rss']['current_mb']:.0f} MB "
        f"(anon {out['rss'].get('anon_mb', math.nan):.0f}, "
        f"file {out['rss'].get('file_mb', math.nan):.0f}), "
        f"peak {out['rss']['max_mb']:.0f} MB"
    )
    return out


async def worker(cfg: argparse.Namespace) -> dict:
    import _util as U

    from memhub.embed.e5 import E5Embedder

    warnings.filterwarnings("ignore", message="Payload indexes have no effect")
    root = Path(cfg.data)
    sizes = [int(s) for s in cfg.sizes.split(",") if s]
    result: dict = {"engine": cfg.worker, "sizes": {}}
    t_all = time.perf_counter()
    for n in sizes:
        result["sizes"][str(n)] = await bench_size(cfg.worker, n, root, cfg, E5Embedder)
        if n != sizes[-1]:  # the largest store stays for the serve process
            shutil.rmtree(root / f"n{n}", ignore_errors=True)
    result["largest"] = sizes[-1]
    result["rss"] = U.rss_mb()  # the loading process, after the largest load and its queries
    result["rss"]["open_largest"] = result["sizes"][str(sizes[-1])]["rss_open"]
    result["wall_s"] = time.perf_counter() - t_all
    return result


# =================================================================================
# parent: run the workers, print the table
# =================================================================================


def _spawn(
    mode: list[str], out: Path, cfg: argparse.Namespace, label: str, env: dict | None = None
) -> dict | None:
    args = [
        sys.executable,
        str(Path(__file__).resolve()),
        *mode,
        "--out",
        str(out),
        "--queries",
        str(cfg.queries),
        "--facts",
        str(cfg.facts),
        "--warmup",
        str(cfg.warmup),
        "--recall-warmup",
        str(cfg.recall_warmup),
        "--budget",
        str(cfg.budget),
        "--min-samples",
        str(cfg.min_samples),
        "--batch",
        str(cfg.batch),
        "--reopens",
        str(cfg.reopens),
        "--serve-queries",
        str(cfg.serve_queries),
    ]
    if cfg.no_optimize:
        args.append("--no-optimize")
    log(f"starting {label}")
    t = time.perf_counter()
    proc = subprocess.run(args, env={**os.environ, **(env or {})})
    log(f"{label} finished in {time.perf_counter() - t:.1f} s (exit {proc.returncode})")
    if proc.returncode != 0 or not out.exists():
        return None
    return json.loads(out.read_text())


def run_engine(engine: str, sizes: list[int], tmp: Path, cfg: argparse.Namespace) -> dict | None:
    data = tmp / engine
    result = _spawn(
        ["--worker", engine, "--sizes", ",".join(map(str, sizes)), "--data", str(data)],
        tmp / f"{engine}.json",
        cfg,
        f"{engine} worker, sizes {sizes}",
    )
    if result is not None:
        result["serve"] = _spawn(
            ["--serve", engine, "--sizes", str(sizes[-1]), "--data", str(data)],
            tmp / f"{engine}-serve.json",
            cfg,
            f"{engine} serve process, n={sizes[-1]}",
        )
        if engine == "edge" and cfg.whatif_env:
            # what-if: the same serve process with extra environment, e.g. the OpenMP
            # spin of the embedder's threads (see README, "Reading the numbers")
            env = dict(kv.split("=", 1) for kv in cfg.whatif_env.split(","))
            result["serve_whatif"] = _spawn(
                ["--serve", engine, "--sizes", str(sizes[-1]), "--data", str(data)],
                tmp / f"{engine}-serve-w.json",
                cfg,
                f"{engine} serve process with {cfg.whatif_env}",
                env=env,
            )
    shutil.rmtree(data, ignore_errors=True)
    return result


def _get(d: dict | None, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _fmt(v, unit: str) -> str:
    if _nan(v):
        return "-"
    if unit == "ms":
        return f"{v:.3f} ms" if v < 1 else f"{v:.2f} ms" if v < 100 else f"{v:.0f} ms"
    if unit == "s":
        return f"{v:.3f} s" if v < 10 else f"{v:.1f} s"
    if unit == "MB":
        return f"{v:.0f} MB"
    return str(v)


def _ratio(base, mine) -> str:
    if _nan(base) or _nan(mine) or not mine:
        return "-"
    r = base / mine
    return f"{r:.0f}x" if r >= 100 else f"{r:.1f}x" if r >= 1 else f"{r:.2f}x"


UNITS = {
    "recall_p50": "ms",
    "store_p50": "ms",
    "memorize_p50": "ms",
    "open_s": "s",
    "rss_mb": "MB",
    "load_s": "s",
    "load_rss_mb": "MB",
}


def build_table(
    edge: dict | None, base: dict | None, sizes: list[int], base_sizes: list[int], cfg
) -> tuple[str, dict]:
    """Rows of (group, metric, N, memhub, baseline, ratio, target, status)."""
    rows: list[tuple[str, ...]] = []
    verdicts: dict[str, str] = {}
    tsize = TARGET_SIZE if TARGET_SIZE in sizes else sizes[-1]
    at = "" if tsize == TARGET_SIZE else f" (@{tsize:,}; target is @{TARGET_SIZE:,})"
    if base is None:
        missing = (
            "n/a (not run)" if cfg.no_baseline or not base_sizes else "n/a (baseline worker failed)"
        )
    else:
        done = _get(base, "sizes", str(base_sizes[-1]))
        missing = (
            f"n/a (too slow: {done['total_s']:.0f} s for {base_sizes[-1]:,})" if done else "n/a"
        )

    def check(name: str, key: str, value) -> tuple[str, str]:
        limit = TARGETS[key]
        ok = not _nan(value) and value <= limit
        verdicts[name] = "PASS" if ok else "MISS"
        return f"<= {_fmt(limit, UNITS[key])}", ("PASS" if ok else "MISS") + (
            "" if not _nan(value) else " (no figure)"
        )

    def add(
        group: str,
        metric: str,
        n: int | str,
        mine,
        theirs,
        unit: str,
        *,
        target: tuple[str, str] | None = None,
        base_text: str | None = None,
        status_note: str = "",
    ) -> None:
        base_ran = base is not None and (not isinstance(n, int) or n in base_sizes)
        if base_text is None:
            base_text = _fmt(theirs, unit) if base_ran else missing
        tgt = status = ""
        if target:
            tgt, status = check(target[0], target[1], mine)
            status += status_note
        ratio = _ratio(theirs, mine) if base_ran else "-"
        rows.append(
            (
                group,
                metric,
                f"{n:,}" if isinstance(n, int) else n,
                _fmt(mine, unit),
                base_text,
                ratio,
                tgt,
                status,
            )
        )

    E = lambda n, *k: _get(edge, "sizes", str(n), *k)  # noqa: E731
    B = lambda n, *k: _get(base, "sizes", str(n), *k)  # noqa: E731
    for n in sizes:
        load_target = ("bulk load", "load_s") if "load_s" in TARGETS and n == tsize else None
        add(
            "load",
            "bulk upsert (batches of 512)",
            n,
            E(n, "load_s"),
            B(n, "load_s"),
            "s",
            target=load_target,
        )
    for n in sizes:
        add(
            "opt",
            "optimize = index build, what the load left",
            n,
            E(n, "optimize_s"),
            None,
            "s",
            base_text="(no index)" if base is not None and n in base_sizes else None,
        )

    def latency(group: str, label: str, target: tuple[str, str]) -> None:
        for stat in ("p50", "p95"):
            for n in sizes:
                tgt = target if stat == "p50" and n == tsize else None
                add(
                    group,
                    label.format(stat=stat),
                    n,
                    E(n, group, stat),
                    B(n, group, stat),
                    "ms",
                    target=tgt,
                    status_note=at,
                )

    latency("store", "store hybrid query {stat}", ("store query p50", "store_p50"))
    for n in sizes:
        add(
            "store",
            "  process CPU per store query (all threads)",
            n,
            E(n, "store", "cpu_ms"),
            B(n, "store", "cpu_ms"),
            "ms",
        )
    latency("recall", "recall e2e {stat}, distinct queries", ("recall e2e p50", "recall_p50"))
    for n in sizes:
        add(
            "recall",
            "  part: query embedding p50",
            n,
            E(n, "recall", "embed_p50"),
            B(n, "recall", "embed_p50"),
            "ms",
        )
        add(
            "recall",
            "  part: rest (filter, store, RRF) p50",
            n,
            E(n, "recall", "rest_p50"),
            B(n, "recall", "rest_p50"),
            "ms",
        )
    for n in sizes:
        add(
            "cached",
            "recall e2e p50, cached query vector",
            n,
            E(n, "recall_cached", "p50"),
            B(n, "recall_cached", "p50"),
            "ms",
        )
    for stat in ("p50", "p95"):
        for n in sizes:
            tgt = ("memorize p50", "memorize_p50") if stat == "p50" and n == tsize else None
            add(
                "memorize",
                f"memorize {stat}",
                n,
                E(n, "memorize", stat),
                B(n, "memorize", stat),
                "ms",
                target=tgt,
                status_note=at,
            )

    # fresh process on the largest store; the two engines may have different largest sizes
    en, bn = _get(edge, "largest"), _get(base, "largest")
    label = f"{en or 0:,}" if not bn or bn == en else f"{en or 0:,} | {bn:,}"
    diff = bool(bn and en and bn != en)
    lg_note = "" if en == TARGET_SIZE else f" (@{en or 0:,})"

    def add_lg(group, metric, mine, theirs, unit, target=None):
        tgt = status = ""
        if target:
            tgt, status = check(target[0], target[1], mine)
            status += lg_note
        ratio = "-" if _nan(theirs) or diff else _ratio(theirs, mine)
        rows.append(
            (
                group,
                metric,
                label,
                _fmt(mine, unit),
                _fmt(theirs, unit) if base else missing,
                ratio,
                tgt,
                status,
            )
        )

    S = lambda d, *k: _get(d, "serve", *k)  # noqa: E731
    add_lg(
        "open",
        "open: construct client + open, new process",
        S(edge, "open_s"),
        S(base, "open_s"),
        "s",
        ("open", "open_s"),
    )
    add_lg(
        "open",
        "open: reopen p50, same process",
        S(edge, "reopen_p50_s"),
        S(base, "reopen_p50_s"),
        "s",
    )
    add_lg(
        "open",
        "first store query after open",
        S(edge, "first_query_ms"),
        S(base, "first_query_ms"),
        "ms",
    )
    add_lg(
        "open",
        "recall e2e p50 in the new process",
        S(edge, "recall", "p50"),
        S(base, "recall", "p50"),
        "ms",
    )
    add_lg(
        "open",
        "  part: query embedding p50",
        S(edge, "recall", "embed_p50"),
        S(base, "recall", "embed_p50"),
        "ms",
    )
    if _get(edge, "serve_whatif"):
        P = lambda *k: _get(edge, "serve_whatif", *k)  # noqa: E731
        rows.append(
            (
                "whatif",
                f"what-if {cfg.whatif_env}: recall e2e p50",
                label,
                _fmt(P("recall", "p50"), "ms"),
                "",
                "",
                f"<= {_fmt(TARGETS['recall_p50'], 'ms')}",
                "(not the shipped default)",
            )
        )
        rows.append(
            (
                "whatif",
                "  part: query embedding p50",
                label,
                _fmt(P("recall", "embed_p50"), "ms"),
                "",
                "",
                "",
                "",
            )
        )
    add_lg(
        "rss",
        "RSS serving: current (new process, after recalls)",
        S(edge, "rss", "current_mb"),
        S(base, "rss", "current_mb"),
        "MB",
        ("RSS serving current", "rss_mb"),
    )
    add_lg(
        "rss", "  of which anonymous", S(edge, "rss", "anon_mb"), S(base, "rss", "anon_mb"), "MB"
    )
    add_lg(
        "rss",
        "  of which file-backed (mmap, libs)",
        S(edge, "rss", "file_mb"),
        S(base, "rss", "file_mb"),
        "MB",
    )
    add_lg(
        "rss",
        "RSS serving: peak (getrusage)",
        S(edge, "rss", "max_mb"),
        S(base, "rss", "max_mb"),
        "MB",
        ("RSS serving peak", "rss_mb"),
    )
    add_lg(
        "rss2",
        "RSS loading process: current, after load+queries",
        _get(edge, "rss", "open_largest", "current_mb"),
        _get(base, "rss", "open_largest", "current_mb"),
        "MB",
        ("RSS loader current", "load_rss_mb" if "load_rss_mb" in TARGETS else "rss_mb"),
    )
    add_lg(
        "rss2",
        "  of which anonymous",
        _get(edge, "rss", "open_largest", "anon_mb"),
        _get(base, "rss", "open_largest", "anon_mb"),
        "MB",
    )
    add_lg(
        "rss2",
        "RSS loading process: peak (getrusage)",
        _get(edge, "rss", "max_mb"),
        _get(base, "rss", "max_mb"),
        "MB",
        ("RSS loader peak", "load_rss_mb" if "load_rss_mb" in TARGETS else "rss_mb"),
    )

    head = (
        "",
        "metric",
        "N",
        "memhub (Edge)",
        "baseline (local mode)",
        "base/memhub",
        "target",
        "status",
    )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def fmt(r) -> str:
        cells = [
            c.ljust(w) if i in (1, 7) else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=False))
            if i
        ]
        return "  ".join(cells).rstrip()

    text, prev = [fmt(head), "  ".join("-" * w for w in widths[1:])], None
    for r in rows:
        if prev is not None and r[0] != prev:
            text.append("")
        prev = r[0]
        text.append(fmt(r))
    return "\n".join(text), verdicts


def parent(cfg: argparse.Namespace) -> int:
    sizes = sorted({int(s) for s in cfg.sizes.split(",") if s})
    base_sizes = [n for n in sizes if n <= cfg.baseline_max]
    tmp = Path(tempfile.mkdtemp(prefix="memhub-bench-", dir=cfg.tmpdir))
    os.environ["MEMHUB_CONFIG"] = str(tmp / "config.yaml")  # never touch ~/.memhub
    t_start = time.perf_counter()
    base = None
    try:
        edge = run_engine("edge", sizes, tmp, cfg)
        if base_sizes and not cfg.no_baseline:
            base = run_engine("baseline", base_sizes, tmp, cfg)
    finally:
        if not cfg.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    wall = time.perf_counter() - t_start
    table, verdicts = build_table(edge, base, sizes, base_sizes, cfg)
    impl = _get(base, "sizes", str(base_sizes[-1]), "impl") if base else "not run"
    print()
    loads = [
        v
        for d in (edge, base)
        if d
        for r in d["sizes"].values()
        for k, v in r.items()
        if k.startswith("loadavg")
    ]
    print(
        f"memhub engine benchmark: sizes {','.join(map(str, sizes))}, {cfg.queries} queries and "
        f"{cfg.facts} facts per size{' (quick)' if cfg.quick else ''}, {os.cpu_count()} CPUs, "
        f"1-min load average during the run "
        f"{min(loads, default=math.nan):.1f}..{max(loads, default=math.nan):.1f}"
    )
    memhub = next(iter(edge["sizes"].values()))["impl"] if edge else "EdgeStore (qdrant-edge)"
    print(f"memhub  : {memhub}\nbaseline: {impl}, run up to N = {cfg.baseline_max:,}")
    print(
        "recall/memorize: MemoryClient with the real E5Embedder; store query: hybrid dense+BM25 "
        "RRF(k=2), user + status/exposure/layer filter"
    )
    print()
    print(table)
    print()
    print(
        f"targets: {sum(v == 'PASS' for v in verdicts.values())}/{len(verdicts)} PASS; wall "
        f"time {wall:.0f} s"
    )
    if cfg.json:
        Path(cfg.json).write_text(
            json.dumps(
                {
                    "sizes": sizes,
                    "baseline_sizes": base_sizes,
                    "quick": cfg.quick,
                    "targets": TARGETS,
                    "verdicts": verdicts,
                    "wall_s": wall,
                    "edge": edge,
                    "baseline": base,
                },
                indent=2,
            )
        )
        print(f"figures written to {cfg.json}")
    return 0 if edge else 1


def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--sizes", default="1000,10000,100000", help="comma-separated corpus sizes")
    p.add_argument(
        "--quick", action="store_true", help="fewer queries/facts, baseline capped at 5000"
    )
    p.add_argument("--json", metavar="OUT", help="also write every figure as JSON")
    p.add_argument("--queries", type=int, help="measured queries per size (default 200, quick 50)")
    p.add_argument(
        "--facts", type=int, help="real facts memorized per size (default 200, quick 50)"
    )
    p.add_argument(
        "--baseline-max",
        type=int,
        help="largest size the baseline runs (default 20000, quick 5000)",
    )
    p.add_argument(
        "--budget", type=float, help="seconds per measured loop before it stops early (default 120)"
    )
    p.add_argument("--no-baseline", action="store_true", help="run memhub only")
    p.add_argument(
        "--scale",
        action="store_true",
        help=f"{SCALE_SIZE:,} memories alone, memhub only, with that size's targets (long)",
    )
    p.add_argument(
        "--no-optimize", action="store_true", help="skip EdgeStore.optimize() (to see its effect)"
    )
    p.add_argument("--keep", action="store_true", help="keep the temp data directory")
    p.add_argument(
        "--whatif-env",
        default="",
        metavar="K=V[,K=V]",
        help="run one more memhub serve process with this environment and show its recall, "
        "e.g. OMP_WAIT_POLICY=ACTIVE (default: none)",
    )
    # internal: worker mode
    p.add_argument(
        "--tmpdir", help="where the temp data directory goes (default: the system temp dir)"
    )
    p.add_argument("--worker", choices=("edge", "baseline"), help=argparse.SUPPRESS)
    p.add_argument("--serve", choices=("edge", "baseline"), help=argparse.SUPPRESS)
    p.add_argument("--serve-queries", type=int, default=50, help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    p.add_argument("--warmup", type=int, default=200, help=argparse.SUPPRESS)
    p.add_argument("--recall-warmup", type=int, default=10, help=argparse.SUPPRESS)
    p.add_argument("--min-samples", type=int, default=30, help=argparse.SUPPRESS)
    p.add_argument("--batch", type=int, default=512, help=argparse.SUPPRESS)
    p.add_argument("--reopens", type=int, default=3, help=argparse.SUPPRESS)
    cfg = p.parse_args()
    cfg.queries = cfg.queries or (50 if cfg.quick else 200)
    cfg.facts = cfg.facts or (50 if cfg.quick else 200)
    cfg.baseline_max = cfg.baseline_max or (5000 if cfg.quick else 20000)
    cfg.budget = cfg.budget or 120.0
    if cfg.scale:
        global TARGET_SIZE
        cfg.sizes, cfg.no_baseline, TARGET_SIZE = str(SCALE_SIZE), True, SCALE_SIZE
        TARGETS.update(SCALE_TARGETS)
    if cfg.worker or cfg.serve:
        if not os.environ.get("MEMHUB_CONFIG"):
            os.environ["MEMHUB_CONFIG"] = str(Path(cfg.data) / "config.yaml")
        result = asyncio.run(worker(cfg) if cfg.worker else serve(cfg))
        Path(cfg.out).write_text(json.dumps(result, indent=2))
        return 0
    return parent(cfg)


if __name__ == "__main__":
    sys.exit(main())
