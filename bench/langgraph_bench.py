"""LangGraph on memhub: ``MemHubStore.put`` and a checkpointed graph step, beside in-memory.

    python bench/langgraph_bench.py [--puts 40] [--steps 60] [--steps-only] [--json OUT]

(a) **Store put**: ``MemHubStore.put`` of a short text item (embedded with the
    bundled e5 model, so the text is searchable), one at a time and as one
    ``batch`` of 16 ``PutOp`` s, against LangGraph's ``InMemoryStore`` (no index:
    nothing embedded). Target: <= 25 ms per put. A put returns once the item is
    stored; its vectors follow in the background (``memhub_langgraph._indexer``), so
    two more rows say what the embedding costs: one e5 passage on its own, and
    ``puts`` puts followed by one search by query (which waits for their vectors),
    per put: the sustained cost until searchable.
(b) **Checkpointed step**: ``graph.invoke`` of a one-node ``StateGraph`` on one thread
    with ``MemHubCheckpointer`` (Qdrant Edge on disk) against ``InMemorySaver``;
    per step = per invoke (one super-step, its checkpoint and writes). Target: <= 5 ms
    per step. The saver keeps each thread's latest checkpoint in memory, so a step on
    a thread it wrote starts without a read; a second row runs each invoke on a new
    thread, whose first step reads the store.

Everything runs in a temp directory; nothing touches the network or ``~/.memhub``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

os.environ.setdefault("OMP_NUM_THREADS", "2")  # e5: 11 ms per query with it, 64 ms without

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _util import percentile  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import PutOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

from memhub import MemoryClient  # noqa: E402
from memhub_langgraph import MemHubCheckpointer, MemHubStore  # noqa: E402

TEXTS = [
    "Alice is vegetarian and allergic to peanuts",
    "用户喜欢川菜，不吃香菜",
    "The deploy window is Thursday afternoon",
    "项目用 PostgreSQL 16 做主数据库",
    "Bob prefers answers in German",
    "下周三去杭州出差，住西湖边",
]


def _ms(samples: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(samples, 50) * 1000, 4),
        "p95": round(percentile(samples, 95) * 1000, 4),
    }


def _time_puts(store, n: int) -> list[float]:
    out = []
    for i in range(n):
        start = time.perf_counter()
        store.put(("bench", "alice"), f"k{i}", {"text": f"{TEXTS[i % len(TEXTS)]} #{i}"})
        out.append(time.perf_counter() - start)
    return out


def _time_searchable(store, n: int) -> list[float]:
    store.search(("bench",), query=TEXTS[0], limit=1)  # the vectors of earlier puts first
    start = time.perf_counter()
    for i in range(n):
        store.put(("bench", "until"), f"u{i}", {"text": f"{TEXTS[i % len(TEXTS)]} until {i}"})
    store.search(("bench", "until"), query=TEXTS[0], limit=1)
    return [(time.perf_counter() - start) / n]


def _time_passages(store, n: int) -> list[float]:
    out = []
    for i in range(n):
        start = time.perf_counter()
        store._runner.run(store.embedder.embed_passages([f"{TEXTS[i % len(TEXTS)]} e5 {i}"]))
        out.append(time.perf_counter() - start)
    return out


def _time_batched(store, n: int, size: int = 16) -> list[float]:
    out = []
    for b in range(max(1, n // size)):
        ops = [
            PutOp(("bench", "batch"), f"b{b}-{i}", {"text": f"{TEXTS[i % len(TEXTS)]} #{b}.{i}"})
            for i in range(size)
        ]
        start = time.perf_counter()
        store.batch(ops)
        out.append((time.perf_counter() - start) / size)
    return out


class State(TypedDict):
    count: int


def _graph(checkpointer):
    builder = StateGraph(State)
    builder.add_node("step", lambda s: {"count": s["count"] + 1})
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=checkpointer)


def _time_steps(checkpointer, n: int, *, new_threads: bool = False) -> dict[str, float]:
    """p50 and p95 of a step, and the CPU time of the whole process per step (every thread:
    on a shared machine it moves much less with the load than wall time)."""
    graph = _graph(checkpointer)
    config = {"configurable": {"thread_id": "bench"}}
    graph.invoke({"count": 0}, config)  # warm
    out = []
    cpu = time.process_time()
    for i in range(n):
        if new_threads:
            config = {"configurable": {"thread_id": f"bench-{i}"}}
        start = time.perf_counter()
        graph.invoke({"count": 0}, config)
        out.append(time.perf_counter() - start)
    return {**_ms(out), "cpu": round((time.process_time() - cpu) / n * 1000, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--puts", type=int, default=40)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--steps-only", action="store_true", help="skip (a), the store put")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memhub-lg-bench-") as tmp:
        os.environ["MEMHUB_CONFIG"] = str(Path(tmp) / "config.yaml")
        report = {} if args.steps_only else _bench_store(Path(tmp), args.puts)
        report.update(_bench_steps(Path(tmp), args.steps))
    report["load_average"] = os.getloadavg()[0]
    print(
        "LangGraph on memhub (p50 / p95 ms; target: put <= 25 ms, step <= 5 ms; "
        f"1-min load average {report['load_average']:.1f})"
    )
    rows = [
        ("checkpointed step (MemHubCheckpointer)", "checkpointed_step_ms", "in_memory_step_ms", 5),
        (
            "  the same, a new thread each step",
            "checkpointed_step_new_thread_ms",
            "in_memory_step_new_thread_ms",
            5,
        ),
    ]
    if not args.steps_only:
        rows[:0] = [
            ("MemHubStore.put (e5-embedded)", "store_put_ms", "in_memory_put_ms", 25),
            (
                "MemHubStore.batch of 16 puts, per put",
                "store_put_batched16_ms_per_item",
                "in_memory_put_ms",
                25,
            ),
        ]
    for name, got_key, base_key, target in rows:
        got, base = report[got_key], report[base_key]
        ratio = got["p50"] / base["p50"] if base["p50"] else float("nan")
        verdict = "meets" if got["p50"] <= target else "misses"
        cells = f"{got['p50']:>7.2f} / {got['p95']:>7.2f}   in-memory {base['p50']:.4f}"
        times = f"x{ratio:,.1f}" if ratio < 10 else f"x{ratio:,.0f}"
        print(f"  {name:<42} {cells}   {times:>6}   {verdict} the {target} ms target")
        if "cpu" in got:
            cpu = f"{got['cpu']:>7.2f}             in-memory {base['cpu']:.4f}"
            print(
                f"  {'    CPU per step, every thread':<42} {cpu}   x{got['cpu'] / base['cpu']:.1f}"
            )
    if not args.steps_only:
        passage, searchable = report["e5_passage_ms"], report["puts_then_search_ms_per_put"]
        print("  what the embedding costs, off the put (same run):")
        print(f"  {'one e5 passage':<42} {passage['p50']:>7.2f} / {passage['p95']:>7.2f}")
        print(
            f"  {f'{args.puts} puts, then a search, per put':<42} {searchable['p50']:>7.2f}"
            f"   (x{searchable['p50'] / passage['p50']:.2f} one e5 passage)"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


def _bench_store(tmp: Path, puts: int) -> dict:
    memory = InMemoryStore()
    _time_puts(memory, 5)
    baseline_put = _ms(_time_puts(memory, puts))
    store = MemHubStore(storage_dir=tmp / "store")
    _time_puts(store, 3)  # load e5, open the store
    report = {
        "store_put_ms": _ms(_time_puts(store, puts)),
        "store_put_batched16_ms_per_item": _ms(_time_batched(store, puts)),
        "puts_then_search_ms_per_put": _ms(_time_searchable(store, puts)),
        "e5_passage_ms": _ms(_time_passages(store, puts)),
        "in_memory_put_ms": baseline_put,
    }
    store.close()
    return report


def _bench_steps(tmp: Path, steps: int) -> dict:
    report = {
        "in_memory_step_ms": _time_steps(InMemorySaver(), steps),
        "in_memory_step_new_thread_ms": _time_steps(InMemorySaver(), steps, new_threads=True),
    }
    with MemHubCheckpointer(MemoryClient(storage_dir=tmp / "ckpt")) as saver:
        report["checkpointed_step_ms"] = _time_steps(saver, steps)
        report["checkpointed_step_new_thread_ms"] = _time_steps(saver, steps, new_threads=True)
    return report


if __name__ == "__main__":
    main()
