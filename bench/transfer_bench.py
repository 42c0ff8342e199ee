"""Export and import rates: memories per second at 100k memories.

    python bench/transfer_bench.py [--size 100000] [--reembed 1000] [--quick]

A store of ``--n`` synthetic memories (``_util.synthetic_batch``, one audit event
each) is exported without and with vectors, then imported into an empty store:
with the file's vectors (the same embedder) and, for the first ``--reembed``
memories, without them, so the real e5 embedder makes every vector (its rate is
what a store moving to another embedder pays). Targets: export >= 20k/s, import
with matching vectors >= 5k/s. Progress goes to stderr; see bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGETS = {"export": 20_000, "import_vectors": 5_000}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


async def load(client, n: int) -> None:
    import _util as U

    from memhub.store.base import StoredPoint

    store, bm25 = client.engine.store, client.engine.bm25
    for start, count in U.batches(n, 512):
        points = U.synthetic_batch(start, count, bm25)
        await store.upsert("memories", points)
        events = [
            StoredPoint(
                str(uuid.uuid4()),
                {
                    "atom_id": p.payload["id"],
                    "kind": "status",
                    "action": "memorize",
                    "from": None,
                    "to": "active",
                    "reason": None,
                    "by": "agent",
                    "at": p.payload["created_at"],
                    "tenant": U.TENANT,
                },
            )
            for p in points
        ]
        await store.upsert("events", events)
    await store.optimize()


def client_at(path: Path, embedder):
    from memhub.client import MemoryClient
    from memhub.config import Settings
    from memhub.scope import Scope

    settings = Settings.load(storage_dir=str(path))
    return MemoryClient(
        settings=settings, embed=embedder, scope=Scope(tenant="local", app_id="default")
    )


async def built(client, coro):
    """``coro``'s result once the store's index build it set off is done too: the write
    that reaches a multiple of 100k memories queues a build instead of awaiting it
    (``EdgeStore.bulk``), so at ``--size 100000`` the import returned before its index
    existed and the next call paid for it."""
    result = await coro
    await client.engine.store.optimize()  # queued behind that build; nothing left to do
    return result


CPU: dict[str, float] = {}


def cpu_seconds() -> tuple[float, float]:
    """CPU of this process, and of it with its ended child processes (an import's worker
    process is ended and reaped when the import returns)."""
    t = os.times()
    return t.user + t.system, t.user + t.system + t.children_user + t.children_system


async def timed(label: str, n: int, coro) -> tuple[float, object]:
    """Memories per second of wall time; memories per CPU-second of the process and its
    workers go to ``CPU`` (on a shared machine the wall rate follows the load, the CPU rate
    much less)."""
    t, (own, c) = time.perf_counter(), cpu_seconds()
    result = await coro
    seconds = time.perf_counter() - t
    own, cpu = (after - before for after, before in zip(cpu_seconds(), (own, c), strict=True))
    CPU[label] = n / cpu
    log(
        f"{label}: {n} memories in {seconds:.2f} s = "
        f"{n / seconds:,.0f}/s ({n / cpu:,.0f} per CPU-second; "
        f"{n / own:,.0f} per CPU-second of the importing process alone; "
        f"load {os.getloadavg()[0]:.1f})"
    )
    return n / seconds, result


async def run(cfg: argparse.Namespace, root: Path) -> dict[str, float]:
    from memhub.embed.e5 import E5Embedder

    rates: dict[str, float] = {}
    source = client_at(root / "source", E5Embedder())
    await source.open()
    t = time.perf_counter()
    await load(source, cfg.n)
    log(
        f"loaded {cfg.n} synthetic memories (+1 event each) "
        f"in {time.perf_counter() - t:.1f} s (not counted)"
    )
    plain, full = root / "plain.jsonl", root / "vectors.jsonl"
    rates["export"], _ = await timed("export", cfg.n, source.export(plain))
    rates["export_vectors"], _ = await timed(
        "export --include-vectors", cfg.n, source.export(full, include_vectors=True)
    )
    await source.aclose()
    log(
        f"files: {plain.stat().st_size / 1e6:.0f} MB, with "
        f"vectors {full.stat().st_size / 1e6:.0f} MB"
    )

    target = client_at(root / "copy", E5Embedder())
    await target.open()
    rates["import_vectors"], result = await timed(
        "import (vectors reused)", cfg.n, built(target, target.import_(full))
    )
    assert result.imported == cfg.n and result.embedded == 0, result
    rates["import_again"], result = await timed(
        "import again (all skipped)", cfg.n, target.import_(full)
    )
    assert result.skipped == cfg.n, result
    await target.aclose()

    with plain.open() as lines:
        head = [next(lines) for _ in range(cfg.reembed + 1)]
    reembed = client_at(root / "reembed", E5Embedder())
    await reembed.open()
    await reembed.engine.embedder.embed_passages(
        ["预热 warmup"]
    )  # load the model outside the timing
    rates["import_reembed"], result = await timed(
        "import (re-embedded with e5)", cfg.reembed, reembed.import_(head)
    )
    assert result.embedded == sum('"exposure":"sealed"' not in line for line in head[1:]), result
    await reembed.aclose()
    return rates


def report(rates: dict[str, float], cfg: argparse.Namespace) -> None:
    rows = [
        ("export", "export", "export", cfg.n),
        ("export with vectors", "export_vectors", "export --include-vectors", cfg.n),
        ("import, vectors reused", "import_vectors", "import (vectors reused)", cfg.n),
        ("import again (idempotent skip)", "import_again", "import again (all skipped)", cfg.n),
        (
            "import, re-embedded (real e5)",
            "import_reembed",
            "import (re-embedded with e5)",
            cfg.reembed,
        ),
    ]
    print(f"\nexport / import rates (memories/s), load average {os.getloadavg()[0]:.1f}")
    print(f"{'figure':32} {'memories':>9} {'per s':>8} {'per CPU-s':>10}  target (per s)")
    for label, key, cpu_key, count in rows:
        target = TARGETS.get(key)
        verdict = f">= {target:,}  {'PASS' if rates[key] >= target else 'MISS'}" if target else ""
        print(f"{label:32} {count:>9,} {rates[key]:>8,.0f} {CPU[cpu_key]:>10,.0f}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--size",
        "--n",
        dest="n",
        type=int,
        default=100_000,
        help="memories in the store (default 100000)",
    )
    parser.add_argument(
        "--reembed", type=int, default=1000, help="memories to import with re-embedding"
    )
    parser.add_argument("--quick", action="store_true", help="10k memories, 200 re-embedded")
    parser.add_argument("--tmpdir", help="where the stores go (default: the system temp dir)")
    cfg = parser.parse_args()
    if cfg.quick:
        cfg.n, cfg.reembed = 10_000, 200
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    with tempfile.TemporaryDirectory(dir=cfg.tmpdir, prefix="memhub-transfer-") as tmp:
        os.environ["MEMHUB_CONFIG"] = str(Path(tmp) / "config.yaml")
        rates = asyncio.run(run(cfg, Path(tmp)))
    report(rates, cfg)


if __name__ == "__main__":
    main()
