"""Load on the REST service: N concurrent clients of mixed add/search over loopback.

    python bench/server_load.py [--clients 16] [--seconds 30 | --quick] [--embedder e5|hash] [--json
    OUT]
    python bench/server_load.py --slow-judge 5 [--quick]
    python bench/server_load.py --flood 5 [--quick]
    python bench/server_load.py --sweep 1,8,32 [--quick]
    python bench/server_load.py --workers 1,2 [--sweep 1,8,32] [--flood 5] [--quick]

With ``--slow-judge S`` it runs the load twice on one server: quiet, then while
another tenant keeps writing through a judge that takes S seconds per call
(scripted: the server's judge sleeps for that tenant's candidates). It prints the
other tenants' write p95 in both runs and their ratio (target: at most 2x), which
holds only if no lock is held across a model call.

With ``--flood R`` another tenant, whose key is limited to R requests a second
(``memhub_server.limits``), sends 10 x R a second the whole time (searches and adds,
paced): the other tenant's p95 beside it is compared with its quiet p95 (target: at
most 1.3x), and the flooder's answers are counted (most must be 429).

With ``--sweep 1,8,32`` the load runs once per client count, on one server, and one
line per count gives p50/p95 of add and search.

With ``--workers 1,2`` the store is a Qdrant REST endpoint over qdrant-client's local
mode (``memhub.testing.qdrant_rest``, test infrastructure: one process, one call at a
time) and the server is ``memhub serve-api --workers N`` over it, a fresh store per
worker count: the sweep (default 1,8,32 clients) runs at each count, then, with
``--flood R``, the flooding tenant's run. One table compares p50/p95 of add and search
per client count with the one-worker figures as the baseline; rate windows are per
worker (``memory://``), so with N workers the flooder may pass N x its rate.

The server runs in its own process (``--serve``, started by this script) on
127.0.0.1 over a fresh store in a temp dir; the clients share one ``httpx``
connection pool here. Afterwards every add the server acknowledged (200) is read
back by id: a write that was answered but is not retrievable is a failure (exit 1).
Then another user of the same key asks for a sample of them through every by-id route
(get, update, delete, history, correct, govern): any success is a failure too.
Traffic goes to loopback only, and every loop is bounded in time and count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _util import percentile, real_facts, real_queries  # noqa: E402

HASH_ENV = "MEMHUB_BENCH_HASH_EMBEDDER"
if os.environ.get(HASH_ENV) == "1":
    # ``serve-api --workers`` spawns workers that import this file again (as ``__mp_main__``):
    # they use the hash embedder too
    from memhub.testing.offline import use_hash_embedder

    use_hash_embedder()

HOST = "127.0.0.1"
USERS = [f"u{i:02d}" for i in range(8)]
MAX_REQUESTS_PER_CLIENT = 100_000  # a bound besides the clock


# =================================================================================
# server: its own process
# =================================================================================


SLOW_MARK = "slowjudge"


def slow_judge(seconds: float):
    """The offline judge, except that it sleeps ``seconds`` on candidates carrying ``SLOW_MARK``."""
    from memhub.providers.heuristic import HeuristicJudge

    class SlowJudge(HeuristicJudge):
        async def judge(self, items):
            if any(SLOW_MARK in item.candidate.text for item in items):
                await asyncio.sleep(seconds)
            return await super().judge(items)

    return SlowJudge()


def serve(store: str, embedder: str, slow: float = 0.0) -> None:
    """Run the REST app over ``store`` on a free loopback port; print ``PORT n``;
    stop on SIGTERM.
    """
    import uvicorn

    from memhub import Settings
    from memhub_server.app import create_app
    from memhub_server.hub import listen
    from memhub_server.service import MemoryService

    async def main() -> None:
        embed = None
        if embedder == "hash":
            from memhub.testing import HashEmbedder

            embed = HashEmbedder()
        settings = Settings(storage_dir=store)
        service = MemoryService(settings, embed=embed, jev=slow_judge(slow) if slow else None)
        await service.open()
        sock = listen(HOST, 0)
        app = create_app(service=service)  # API keys from <store>/api_keys.json
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
        )
        print(f"PORT {sock.getsockname()[1]}", flush=True)
        await server.serve(sockets=[sock])

    asyncio.run(main())


# =================================================================================
# clients
# =================================================================================


@dataclass
class Tally:
    latency: dict[str, list[float]] = field(default_factory=lambda: {"add": [], "search": []})
    errors: dict[str, dict[int, int]] = field(default_factory=lambda: {"add": {}, "search": {}})
    written: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # (user, id, content) of acked raw records
    derived: list[tuple[str, str]] = field(default_factory=list)  # (user, id) of acked facts


async def client_loop(
    http: httpx.AsyncClient,
    seed: int,
    deadline: float,
    write_ratio: float,
    facts: list[str],
    queries: list[str],
    tally: Tally,
) -> None:
    rng = random.Random(seed)
    for _ in range(MAX_REQUESTS_PER_CLIENT):
        if time.monotonic() >= deadline:
            return
        user = rng.choice(USERS)
        if rng.random() < write_ratio:
            op, content = "add", f"{rng.choice(facts)} #{seed}-{rng.randrange(10**9)}"
            request = http.post("/v1/memories/", json={"content": content, "user_id": user})
        else:
            op, content = "search", ""
            request = http.post(
                "/v1/memories/search", json={"query": rng.choice(queries), "user_id": user}
            )
        start = time.perf_counter()
        try:
            response = await request
            status = response.status_code
        except httpx.HTTPError:
            status = 0
        tally.latency[op].append((time.perf_counter() - start) * 1000)
        if status != 200:
            tally.errors[op][status] = tally.errors[op].get(status, 0) + 1
        elif op == "add":
            body = response.json()
            tally.written.append((user, body["memory_id"], content))
            tally.derived.extend(
                (user, d["memory_id"]) for d in body["decisions"] if d["memory_id"]
            )


async def verify(http: httpx.AsyncClient, tally: Tally) -> list[str]:
    """Every acknowledged add must be retrievable by id, with the text that was sent."""
    problems: list[str] = []
    sem = asyncio.Semaphore(8)

    async def check(user: str, memory_id: str, content: str | None) -> None:
        async with sem:
            response = await http.get(f"/v1/memories/{memory_id}", params={"user_id": user})
        if response.status_code != 200:
            problems.append(f"{memory_id}: HTTP {response.status_code}")
        elif content is not None and response.json()["content"] != content:
            problems.append(f"{memory_id}: content differs")

    await asyncio.gather(
        *(check(u, i, c) for u, i, c in tally.written),
        *(check(u, i, None) for u, i in tally.derived),
    )
    return problems


async def cross_user(http: httpx.AsyncClient, tally: Tally, sample: int = 50) -> tuple[int, int]:
    """Another user of the same key asks for acknowledged memories by id, through every by-id
    route (get, update, delete, history, correct, govern): (attempts, successes); must be 0 \
successes."""
    attempts = successes = 0
    for user, memory_id, _ in tally.written[:sample]:
        other = {"user_id": USERS[(USERS.index(user) + 1) % len(USERS)]}
        change = {"target_atom": memory_id, "reason": "cross-user probe", **other}
        for request in (
            http.get(f"/v1/memories/{memory_id}", params=other),
            http.put(f"/v1/memories/{memory_id}", json={"content": "cross-user probe", **other}),
            http.delete(f"/v1/memories/{memory_id}", params=other),
            http.get(f"/v1/hmg/history/{memory_id}", params=other),
            http.post("/v1/hmg/correct", json={"action": "confirm_necessary", **change}),
            http.post("/v1/hmg/govern", json={"action": "seal", **change}),
        ):
            attempts += 1
            successes += (await request).is_success
    return attempts, successes


def row(name: str, ms: list[float], seconds: float, errors: dict[int, int]) -> str:
    p = [percentile(ms, q) for q in (50, 95, 99)]
    return (
        f"{name:<8}{len(ms):>8}{sum(errors.values()):>8}{len(ms) / seconds:>10.1f}"
        f"{p[0]:>10.1f}{p[1]:>10.1f}{p[2]:>10.1f}"
    )


async def run_load(base: str, key: str, args: argparse.Namespace) -> dict:
    facts, queries = real_facts(400), real_queries(200)
    tally = Tally()
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as http:
        for q in queries[:5]:  # warm up: model load, first connections
            await http.post("/v1/memories/search", json={"query": q, "user_id": USERS[0]})
        start = time.monotonic()
        deadline = start + args.seconds
        await asyncio.gather(
            *(
                client_loop(http, seed, deadline, args.write_ratio, facts, queries, tally)
                for seed in range(args.clients)
            )
        )
        elapsed = time.monotonic() - start
        checked = time.monotonic()
        problems = await verify(http, tally)
        verify_s = time.monotonic() - checked
        probes, leaks = await cross_user(http, tally)  # after verify: a leak may change a memory

    everything = tally.latency["add"] + tally.latency["search"]
    all_errors = {
        s: tally.errors["add"].get(s, 0) + tally.errors["search"].get(s, 0)
        for s in {*tally.errors["add"], *tally.errors["search"]}
    }
    print(
        f"\n{args.clients} clients x {elapsed:.1f} s, embedder {args.embedder}, write "
        f"ratio {args.write_ratio}"
    )
    print(
        f"{'op':<8}{'count':>8}{'errors':>8}{'req/s':>10}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}"
    )
    print(row("add", tally.latency["add"], elapsed, tally.errors["add"]))
    print(row("search", tally.latency["search"], elapsed, tally.errors["search"]))
    print(row("all", everything, elapsed, all_errors))
    print(
        f"verify: {len(tally.written)} acknowledged adds ({len(tally.derived)} facts) read back by "
        f"id in {verify_s:.1f} s: {'OK' if not problems else f'{len(problems)} MISSING'}"
    )
    for problem in problems[:10]:
        print(f"  {problem}")
    print(f"cross-user: {probes} by-id requests for another user's memories, {leaks} succeeded")
    if leaks:
        problems.append(f"{leaks} cross-user requests succeeded")
    summary = {
        op: {
            "count": len(ms),
            "errors": tally.errors.get(op, all_errors),
            "rps": len(ms) / elapsed,
            **{f"p{q}": percentile(ms, q) for q in (50, 95, 99)},
        }
        for op, ms in (
            ("add", tally.latency["add"]),
            ("search", tally.latency["search"]),
            ("all", everything),
        )
    }
    return {
        "clients": args.clients,
        "seconds": elapsed,
        "embedder": args.embedder,
        "ops": summary,
        "acknowledged_adds": len(tally.written),
        "verify_problems": problems,
        "cross_user": {"attempts": probes, "successes": leaks},
    }


async def slow_tenant(
    http: httpx.AsyncClient, user: str, deadline: float, latencies: list[float]
) -> None:
    """One user's writes, each judged slowly: it restates one fact, so the judge
    sees a neighbour.
    """
    for n in range(MAX_REQUESTS_PER_CLIENT):
        if time.monotonic() >= deadline:
            return
        content = f"My favourite drink is tea number {n % 3} ({SLOW_MARK})"
        start = time.perf_counter()
        await http.post("/v1/memories/", json={"content": content, "user_id": user})
        latencies.append((time.perf_counter() - start) * 1000)


async def flooder(
    http: httpx.AsyncClient, rate: float, deadline: float, statuses: dict[int, int]
) -> None:
    """Send ``rate`` requests a second (paced, not waiting for answers beyond 64 at once) until
    ``deadline``: searches, and an add in four."""
    facts, queries = real_facts(100), real_queries(100)
    gate = asyncio.Semaphore(64)
    sent: list[asyncio.Task] = []

    async def one(n: int) -> None:
        async with gate:
            if n % 4 == 0:
                body = {"content": f"{facts[n % len(facts)]} #flood-{n}", "user_id": "flood"}
                request = http.post("/v1/memories/", json=body)
            else:
                body = {"query": queries[n % len(queries)], "user_id": "flood"}
                request = http.post("/v1/memories/search", json=body)
            try:
                status = (await request).status_code
            except httpx.HTTPError:
                status = 0
            statuses[status] = statuses.get(status, 0) + 1

    start = time.monotonic()
    for n in range(MAX_REQUESTS_PER_CLIENT):
        due = start + n / rate
        if due >= deadline:
            break
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        sent.append(asyncio.ensure_future(one(n)))
    await asyncio.gather(*sent)


def flood_child(base: str, key: str, rate: float, seconds: float) -> None:
    """The flooder in a process of its own (its client work must not slow the measured
    clients' loop); prints its answers' statuses as JSON."""
    statuses: dict[int, int] = {}

    async def main() -> None:
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(
            base_url=base, headers=headers, limits=limits, timeout=60
        ) as http:
            await flooder(http, rate, time.monotonic() + seconds, statuses)

    asyncio.run(main())
    print(json.dumps(statuses), flush=True)


async def run_flood(base: str, key: str, flood_key: str, args: argparse.Namespace) -> dict:
    """The load quiet, then beside a tenant sending 10x its rate limit."""
    quiet = await run_load(base, key, args)
    rate, seconds = str(10 * args.flood), str(args.seconds + 2.0)
    child = subprocess.Popen(
        [sys.executable, __file__, "--flood-child", base, flood_key, rate, seconds],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        await asyncio.sleep(0.5)  # the flood is running
        loaded = await run_load(base, key, args)
        out, _ = await asyncio.to_thread(child.communicate, timeout=args.seconds + 120)
    finally:
        if child.poll() is None:
            child.kill()
    statuses = {int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()}
    q, s = quiet["ops"]["all"]["p95"], loaded["ops"]["all"]["p95"]
    refused = statuses.get(429, 0) / max(1, sum(statuses.values()))
    print(
        f"\nother tenant's p95 (all requests): quiet {q:.1f} ms, beside a tenant sending "
        f"{10 * args.flood:g}/s against its {args.flood:g}/s limit {s:.1f} ms: {s / q:.2f}x "
        f"(target <= 1.3x); the flooder's answers: {dict(sorted(statuses.items()))} "
        f"({refused:.0%} refused with 429)"
    )
    return {"quiet": quiet, "flood": loaded, "ratio_p95": s / q, "flooder_statuses": statuses}


async def run_sweep(base: str, key: str, args: argparse.Namespace) -> dict:
    """The load at each client count of ``--sweep``; one summary line each."""
    runs = {}
    for clients in args.sweep:
        args.clients = clients
        runs[clients] = await run_load(base, key, args)
    print(f"\n{'clients':>8}{'add p50':>10}{'add p95':>10}{'search p50':>12}{'search p95':>12}")
    for clients, r in runs.items():
        add, search = r["ops"]["add"], r["ops"]["search"]
        print(
            f"{clients:>8}{add['p50']:>10.1f}{add['p95']:>10.1f}"
            f"{search['p50']:>12.1f}{search['p95']:>12.1f}"
        )
    problems = [p for r in runs.values() for p in r["verify_problems"]]
    return {"runs": runs, "verify_problems": problems}


async def run_slow_judge(base: str, key: str, slow_key: str, args: argparse.Namespace) -> dict:
    """The load quiet, then beside a tenant whose judge takes ``args.slow_judge`` s per call."""
    quiet = await run_load(base, key, args)
    slow_ms: list[float] = []
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {slow_key}"}, timeout=args.slow_judge * 20
    ) as http:
        users = [f"slow{i}" for i in range(4)]
        for user in users:
            first = {"content": f"My favourite drink is tea ({SLOW_MARK})", "user_id": user}
            await http.post("/v1/memories/", json=first)
        deadline = time.monotonic() + args.seconds + args.slow_judge
        writers = [asyncio.ensure_future(slow_tenant(http, u, deadline, slow_ms)) for u in users]
        await asyncio.sleep(0.5)  # the slow writes are in the judge now
        loaded = await run_load(base, key, args)
        await asyncio.gather(*writers)
    q, s = quiet["ops"]["add"]["p95"], loaded["ops"]["add"]["p95"]
    print(
        f"\nother tenants' write p95: quiet {q:.1f} ms, beside a {args.slow_judge:g} s "
        f"judge {s:.1f} ms: "
        f"{s / q:.2f}x (target <= 2x); the slow tenant's writes: {len(slow_ms)}, "
        f"p50 {percentile(slow_ms, 50):.0f} ms"
    )
    return {"quiet": quiet, "slow_judge": loaded, "ratio_p95": s / q, "slow_tenant_ms": slow_ms}


def serve_api(store: str, port: int, workers: int) -> int:
    """``memhub --storage-dir STORE serve-api --port PORT --workers N`` in this process."""
    import memhub_server.cli as server_cli
    from memhub.cli import app
    from memhub.errors import UsageError

    try:
        app.build_parser().parse_args(["keys", "list"])
    except UsageError:  # the entry point is not installed: register the server's commands
        app.COMMAND_MODULES.append(server_cli)
    argv = ["--storage-dir", store, "serve-api", "--port", str(port), "--workers", str(workers)]
    return app.main([*argv, "--digest-every", "0"])


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _wait_ready(base: str, child: subprocess.Popen, seconds: float = 300.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise SystemExit(f"serve-api exited {child.returncode}")
        try:
            if httpx.get(f"{base}/ready", timeout=60).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"serve-api was not ready in {seconds:g} s")


def _stop(child: subprocess.Popen) -> None:
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def run_workers(args: argparse.Namespace) -> dict:
    """The sweep (and the flood) at each worker count of ``--workers``, each over a fresh
    store on the Qdrant shim; one table, the one-worker figures as the baseline."""
    from memhub.testing import qdrant_rest
    from memhub_server.auth import KEYS_FILE, KeyStore
    from memhub_server.limits import Limit

    sweep = args.sweep or [1, 8, 32]
    by_workers: dict[int, dict] = {}
    for workers in args.workers:
        folder = Path(tempfile.mkdtemp(prefix="memhub-server-workers-"))
        store = folder / "store"
        keys = KeyStore(store / KEYS_FILE)
        key, _ = keys.create("bench")
        flood_key, _ = keys.create("flood", limits=Limit(rate=f"{max(args.flood, 1):g}/second"))
        env = {
            **os.environ,
            "MEMHUB_CONFIG": str(folder / "config.yaml"),
            HASH_ENV: "1" if args.embedder == "hash" else "0",
        }
        with qdrant_rest.running() as qdrant:
            env["MEMHUB_QDRANT_URL"] = qdrant
            port = _free_port()
            base = f"http://{HOST}:{port}"
            command = [sys.executable, __file__, "--serve-api", str(store), str(port), str(workers)]
            child = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                _wait_ready(base, child)
                print(f"\n== {workers} worker(s) on {base}, Qdrant shim {qdrant}", file=sys.stderr)
                runs = {}
                for clients in sweep:
                    args.clients = clients
                    runs[clients] = asyncio.run(run_load(base, key, args))
                flood = None
                if args.flood:
                    args.clients = 8
                    flood = asyncio.run(run_flood(base, key, flood_key, args))
            finally:
                _stop(child)
                shutil.rmtree(folder, ignore_errors=True)
        by_workers[workers] = {"runs": runs, "flood": flood}
    _print_workers(by_workers, sweep)
    problems = [
        p
        for w in by_workers.values()
        for r in [
            *w["runs"].values(),
            *([w["flood"]["quiet"], w["flood"]["flood"]] if w["flood"] else []),
        ]
        for p in r["verify_problems"]
    ]
    return {"workers": by_workers, "verify_problems": problems}


def _print_workers(by_workers: dict[int, dict], sweep: list[int]) -> None:
    base = min(by_workers)
    print(f"\np50 / p95 ms per route; ratio: p95 against {base} worker(s), from this one run")
    head = f"{'route':<8}{'clients':>8}"
    for workers in by_workers:
        head += f"{f'{workers}w p50':>10}{f'{workers}w p95':>10}{f'{workers}w req/s':>12}"
        if workers != base:
            head += f"{'p95 ratio':>10}"
    print(head)
    for op in ("add", "search"):
        for clients in sweep:
            line = f"{op:<8}{clients:>8}"
            for workers, got in by_workers.items():
                ops = got["runs"][clients]["ops"]
                figures = ops[op]
                rps = ops["all"]["rps"]
                line += f"{figures['p50']:>10.1f}{figures['p95']:>10.1f}{rps:>12.1f}"
                if workers != base:
                    ratio = figures["p95"] / by_workers[base]["runs"][clients]["ops"][op]["p95"]
                    line += f"{ratio:>9.2f}x"
            print(line)
    for workers, got in by_workers.items():
        if got["flood"]:
            f = got["flood"]
            statuses = f["flooder_statuses"]
            refused = statuses.get(429, 0) / max(1, sum(statuses.values()))
            print(
                f"flood, {workers} worker(s): other tenant's p95 quiet "
                f"{f['quiet']['ops']['all']['p95']:.1f} ms, beside the flood "
                f"{f['flood']['ops']['all']['p95']:.1f} ms: {f['ratio_p95']:.2f}x; "
                f"flooder {refused:.0%} refused"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--quick", action="store_true", help="5 seconds")
    parser.add_argument(
        "--write-ratio", type=float, default=0.3, help="share of adds (default 0.3)"
    )
    parser.add_argument(
        "--embedder", choices=("e5", "hash"), default="e5", help="e5 = the real default"
    )
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    parser.add_argument(
        "--slow-judge",
        type=float,
        default=0.0,
        metavar="S",
        help="also run beside a tenant whose judge takes S seconds",
    )
    parser.add_argument(
        "--flood",
        type=int,
        default=0,
        metavar="R",
        help="also run beside a tenant limited to R requests/s that sends 10 x R/s",
    )
    parser.add_argument(
        "--sweep",
        type=lambda text: [int(n) for n in text.split(",")],
        default=None,
        metavar="N,N,...",
        help="run the load once per client count (e.g. 1,8,32)",
    )
    parser.add_argument(
        "--workers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=None,
        metavar="N,N,...",
        help="run serve-api --workers N over a Qdrant shim, once per count (e.g. 1,2)",
    )
    parser.add_argument("--serve", metavar="STORE", help=argparse.SUPPRESS)  # the child process
    parser.add_argument("--serve-api", nargs=3, help=argparse.SUPPRESS)  # STORE PORT WORKERS
    parser.add_argument("--flood-child", nargs=4, help=argparse.SUPPRESS)  # the flooder's
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.embedder, args.slow_judge)
        return 0
    if args.serve_api:
        store, port, workers = args.serve_api
        return serve_api(store, int(port), int(workers))
    if args.flood_child:
        base, key, rate, seconds = args.flood_child
        flood_child(base, key, float(rate), float(seconds))
        return 0
    if args.quick:
        args.seconds = 5.0
    if not (1 <= args.clients <= 256 and 0 < args.seconds <= 600 and 0 <= args.write_ratio <= 1):
        parser.error("--clients 1-256, --seconds up to 600, --write-ratio 0-1")
    if not 0 <= args.flood <= 50 or any(not 1 <= n <= 256 for n in args.sweep or []):
        parser.error("--flood 0-50 requests/s, --sweep counts 1-256")
    if args.workers:
        if any(not 1 <= n <= 8 for n in args.workers):
            parser.error("--workers counts 1-8")
        result = run_workers(args)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2))
        return 1 if result["verify_problems"] else 0

    from memhub_server.auth import KEYS_FILE, KeyStore
    from memhub_server.limits import Limit

    folder = Path(tempfile.mkdtemp(prefix="memhub-server-load-"))
    store = folder / "store"
    key, _ = KeyStore(store / KEYS_FILE).create("bench")
    slow_key, _ = KeyStore(store / KEYS_FILE).create("slow")
    flood_key, _ = KeyStore(store / KEYS_FILE).create(
        "flood", limits=Limit(rate=f"{args.flood:g}/second") if args.flood else None
    )
    env = {**os.environ, "MEMHUB_CONFIG": str(folder / "config.yaml")}
    command = [
        sys.executable,
        __file__,
        "--serve",
        str(store),
        "--embedder",
        args.embedder,
        "--slow-judge",
        str(args.slow_judge),
    ]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = (
            child.stdout.readline() if child.stdout else ""
        )  # blocks until the store is open and bound
        if not line.startswith("PORT "):
            raise SystemExit(f"the server did not start (exit {child.poll()})")
        base = f"http://{HOST}:{int(line.split()[1])}"
        print(f"server on {base}, store {store}", file=sys.stderr)
        if args.flood:
            result = asyncio.run(run_flood(base, key, flood_key, args))
            result["verify_problems"] = (
                result["quiet"]["verify_problems"] + result["flood"]["verify_problems"]
            )
        elif args.sweep:
            result = asyncio.run(run_sweep(base, key, args))
        elif args.slow_judge:
            result = asyncio.run(run_slow_judge(base, key, slow_key, args))
            result["verify_problems"] = (
                result["quiet"]["verify_problems"] + result["slow_judge"]["verify_problems"]
            )
        else:
            result = asyncio.run(run_load(base, key, args))
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 1 if result["verify_problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
