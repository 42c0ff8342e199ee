"""The memory inspector's page loads with 100k memories in the store.

    python bench/inspector_bench.py [--n 100000] [--store PATH] [--requests 60]

Bulk-loads the synthetic corpus of ``engine_bench`` (``_util.synthetic_batch``: 50
users, zh/en pseudo-sentences, every layer, status and exposure; here also sessions
and repositories) into a new Qdrant Edge store, starts the REST app (the inspector is
at ``/ui``) with the real e5 embedder on a loopback port, signs in with an API key and
times whole page loads (request to last byte of the HTML, as a browser gets it):

* memories list: the first page, filtered pages (user, layer+status, exposure,
  session, repository) and pages deep in the list (following the cursor);
* search: ``search`` + ``search_conversation`` + ``recall`` of a new query for one
  user, side by side, with "what the agent would be given";
* the overview, first load (counts computed) and again (cached until a write).

Targets (issue 15): memories list p95 <= 300 ms, search p95 <= 500 ms.
``--store PATH`` reuses (or keeps) a loaded store; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("OMP_NUM_THREADS", "2")  # e5 query embedding: 11 ms with it, 64 without

import _util as U  # noqa: E402
import httpx  # noqa: E402

TARGETS = {"memories": 300.0, "search": 500.0}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


async def load(path: Path, n: int) -> None:
    """``n`` synthetic memories, written straight to the store as ``engine_bench`` does."""
    from memhub.embed.e5 import E5Embedder
    from memhub.engine.access import ACCESS_KEY, access_keys
    from memhub.engine.core import Engine
    from memhub.store.edge import EdgeStore

    engine = Engine(EdgeStore(path), E5Embedder())
    await engine.open()
    t = time.perf_counter()
    for start, count in U.batches(n, 512):
        points = U.synthetic_batch(start, count, engine.bm25)
        for i, point in enumerate(points):
            idx = start + i
            point.payload["session_id"] = f"s{idx // 25:05d}"
            if idx % 3 == 0:
                point.payload["repository"] = ("acme/api", "acme/web")[idx % 2]
                point.payload["branch"] = "main"
            point.payload[ACCESS_KEY] = access_keys(point.payload)
        await engine.store.upsert("memories", points)
    await engine.store.optimize()
    await engine.close()
    log(f"loaded {n} memories in {time.perf_counter() - t:.1f} s")


class Server:
    """The REST app with the inspector, served by uvicorn in a thread."""

    def __init__(self, path: Path) -> None:
        import uvicorn

        from memhub import Settings
        from memhub_server.app import create_app
        from memhub_server.auth import KEYS_FILE, KeyStore
        from memhub_server.hub import listen

        keys = KeyStore(path / KEYS_FILE)
        self.key, _ = keys.create(U.TENANT)
        self.sock = listen("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        app = create_app(Settings(storage_dir=str(path)), auth=keys)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True
        )

    def __enter__(self) -> Server:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)


def timed(http: httpx.Client, url: str) -> tuple[float, str]:
    t = time.perf_counter_ns()
    response = http.get(url)
    ms = (time.perf_counter_ns() - t) / 1e6
    response.raise_for_status()
    return ms, response.text


def next_link(html: str) -> str | None:
    marker = 'id="next-page" href="'
    at = html.find(marker)
    if at < 0:
        return None
    return html[at + len(marker) : html.index('"', at + len(marker))].replace("&amp;", "&")


def run(url: str, key: str, requests: int) -> dict[str, list[float]]:
    rng = random.Random(5)
    out: dict[str, list[float]] = {"memories list": [], "memories deep": [], "search": []}
    with httpx.Client(base_url=url, timeout=120, follow_redirects=True) as http:
        signed = http.post("/ui/login", data={"key": key}, follow_redirects=False)
        assert signed.status_code == 303, signed.text
        ms, _ = timed(http, "/ui/")
        out["overview first"] = [ms]
        out["overview cached"] = [timed(http, "/ui/")[0] for _ in range(5)]
        log(f"overview: first {ms:.0f} ms, cached {min(out['overview cached']):.0f} ms")
        for _ in range(3):  # warm up: model load, first touches of the store's pages
            timed(http, "/ui/memories")
            timed(http, "/ui/search?q=warmup&user_id=u001")
        lists = [  # (page, how many values its placeholder takes)
            ("/ui/memories", 1),
            ("/ui/memories?user_id=u{:03d}", U.USERS),
            ("/ui/memories?layer=fact&status=active", 1),
            ("/ui/memories?exposure=sealed", 1),
            ("/ui/memories?session_id=s{:05d}", 4000),
            ("/ui/memories?repository=acme/api&user_id=u{:03d}", U.USERS),
        ]
        for i in range(requests):
            template, values = lists[i % len(lists)]
            path = template.format(rng.randrange(values))
            ms, html = timed(http, path)
            out["memories list"].append(ms)
            for _ in range(2):  # two pages further down the same list
                link = next_link(html)
                if link is None:
                    break
                ms, html = timed(http, link)
                out["memories deep"].append(ms)
        for q in U.real_queries(requests, seed=29):
            user = f"u{rng.randrange(U.USERS):03d}"
            query = httpx.QueryParams(q=q, user_id=user)
            out["search"].append(timed(http, f"/ui/search?{query}")[0])
    return out


def report(n: int, figures: dict[str, list[float]]) -> None:
    print(f"\nmemory inspector page loads, {n} memories in the store (ms, whole HTML response)")
    print(f"{'page':<18} {'n':>4} {'p50':>8} {'p95':>8} {'target p95':>11}  verdict")
    for name, ms in figures.items():
        s = U.summary(ms)
        kind = "memories" if name.startswith("memories") else name
        target = TARGETS.get(kind)
        verdict = "" if target is None else ("PASS" if s["p95"] <= target else "MISS")
        shown = f"{target:.0f}" if target else "-"
        print(f"{name:<18} {s['n']:>4} {s['p50']:>8.1f} {s['p95']:>8.1f} {shown:>11}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--store", type=Path, help="a store to reuse, or where to keep the new one")
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memhub-inspector-bench-"))
    os.environ["MEMHUB_CONFIG"] = str(root / "config.yaml")  # never the user's ~/.memhub
    path = args.store or root / "store"
    try:
        if not (path / "memories").exists():
            log(f"loading {args.n} memories into {path} (a few minutes)")
            asyncio.run(load(path, args.n))
        with Server(path) as server:
            figures = run(server.url, server.key, args.requests)
        report(args.n, figures)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
