"""No request may freeze the service: hostile inputs, a flooding tenant, and secrets.

    python bench/adversarial_bench.py [--quick] [--json OUT]

(a) **Worst add per input kind**, offline (fresh Edge store, real e5, heuristic
    extractor and judge), after the user already has memories (so the judge runs).
    Each kind is sent as one ``add`` of 10 messages x 100,000 characters (the
    per-message limit; ~1 MiB, the REST body limit; ``--quick``: 2 messages) and as
    one ``add(content=...)`` and one ``memorize`` of 32,000 characters (their limit).
    Wall time and the CPU time of the calling (event-loop) thread, beside a
    plain-English add of the same size from the same run: embedding (each text cut to
    e5's 512 tokens) runs on the model's threads and dominates the wall time, so on a
    loaded machine the ratio to plain English is the figure to read. Target: <= 3 s.
    Also one ``add`` of as many short chat turns (English and Chinese, each near e5's
    128-token chat-turn cut, so embedded whole) as a server door takes
    (``max_messages_per_add``): the largest add of many short turns a server runs.
(b) **/health while the fuzz corpus runs**: the REST server in its own process;
    every kind of (a) is posted in turn (~1 MiB each), then bodies of many short turns
    (the limit's worth; 2,000 turns in ~1 MiB; 5,000 turns of ~200 characters), while
    ``/health`` is polled every 20 ms, after a quiet window polled the same way (the
    machine's own noise, from the same run). Target: worst /health <= 100 ms, and each
    request refused at once or done within 3 s.
(c) **A flooding tenant**: tenant B recalls short queries, alone (quiet) and while
    tenant A sends recalls of ``"a" + "\\u0301" * 7999`` and long adds from 4
    connections. Target: B's p95 while flooded <= 3x its quiet p95.
(d) **Secret formats redacted / tried** (``tests/core/secret_formats.py``), and the
    near misses kept.

Everything runs on loopback in a temp directory; each loop is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

from _util import percentile  # noqa: E402

HOST = "127.0.0.1"
MESSAGE_CHARS = 100_000
MESSAGES = 10
CONTENT_CHARS = 32_000

KINDS = {
    "capitalised run": "Alice Smith Bob Jones ",
    "Bearer repeated": "Bearer ",
    "combining marks": "\u0301",
    "CJK run": "我",
    "repeated token": "the ",
    "replacement cues": "把 ",
    "chit-chat run": "哈",
    "digits": "1",
    "password prose": "my password is ",
    "sentences": "I moved to Berlin and use Python 3.12 now. ",
    "plain English (baseline)": "We met the team on Monday to plan the release of version two. ",
}


def fill(unit: str, n: int) -> str:
    text = (unit * (n // len(unit) + 1))[:n]
    return "a" + text[1:] if unit == "\u0301" else text


_SAID = (
    "I moved to {city} in {month} and now work at {firm} on the {team} team. ",
    "My favourite drink is {drink}; on weekends I go {sport} with {name}. ",
    "We ship version {n}.{m} of the {team} service on {day}, after the review. ",
    "我{month}搬到了{city}，现在在{firm}的{team}组上班。",
    "我最喜欢喝{drink}，周末一般和{name}一起去{sport}。",
    "提醒我{name}的生日是{n}号，她喜欢{drink}，记得在{day}之前订好蛋糕。",
)
_WORDS = {
    "city": ("Berlin", "Lisbon", "Osaka", "上海", "成都", "杭州"),
    "month": ("March", "June", "三月", "九月"),
    "firm": ("Acme", "Globex", "Initech", "字节"),
    "team": ("billing", "search", "ingest", "报表"),
    "drink": ("oolong tea", "flat white", "乌龙茶", "美式咖啡"),
    "sport": ("hiking", "climbing", "爬山", "游泳"),
    "name": ("Alice", "Chen Wei", "Maria", "王芳"),
    "day": ("Monday", "Friday", "周三", "周五"),
}


def short_turns(n: int, en: int = 250, zh: int = 160, seed: int = 0) -> list[dict[str, str]]:
    """``n`` distinct chat turns, English (``en`` characters) and Chinese (``zh``) by turns.

    By default each is just under e5's 128-token cut for a chat turn, so embedded whole:
    the costliest short turn.
    """
    import random

    rng = random.Random(seed)
    out = []
    for i in range(n):
        said, budget = (_SAID[:3], en) if i % 2 == 0 else (_SAID[3:], zh)
        text = f"{i}: "
        while len(text) < budget:
            words = {k: rng.choice(v) for k, v in _WORDS.items()}
            text += rng.choice(said).format(n=rng.randint(1, 28), m=rng.randint(0, 9), **words)
        out.append({"role": "user" if i % 2 == 0 else "assistant", "content": text[:budget]})
    return out


def per_add_limit() -> int:
    from memhub import Settings

    return int(Settings.model_fields["max_messages_per_add"].default)


# =================================================================================
# (a) add, in process
# =================================================================================


async def worst_adds(quick: bool) -> dict[str, dict[str, float]]:
    from memhub import MemoryClient

    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="memhub-adversarial-") as folder:
        os.environ["MEMHUB_CONFIG"] = str(Path(folder) / "config.yaml")
        async with MemoryClient(storage_dir=Path(folder) / "store", cwd=folder) as client:
            for fact in (
                "我住在上海",
                "I work at Acme as an engineer",
                "My favourite editor is vim",
            ):
                await client.add(fact, user_id="u")
            messages = 2 if quick else MESSAGES
            for kind, unit in KINDS.items():
                body = [
                    {"role": "user", "content": fill(unit, MESSAGE_CHARS)} for _ in range(messages)
                ]
                for i, m in enumerate(body):  # distinct messages: no dedupe shortcut
                    m["content"] = f"{i} " + m["content"][2:]
                out[kind] = {}
                calls = (
                    ("add_1mib", client.add(messages=body, user_id="u")),
                    ("add_32k", client.add(fill(unit, CONTENT_CHARS), user_id="u")),
                    ("memorize_32k", client.memorize(fill(unit, CONTENT_CHARS)[:-1] + "!")),
                )
                for name, call in calls:
                    # wall time, and the CPU time of the whole process: on a loaded machine
                    # wall time grows with the load, CPU time much less (on an idle 2-core
                    # machine wall time is at most about the CPU time)
                    wall, cpu = time.perf_counter(), time.process_time()
                    await call
                    out[kind][f"{name}_s"] = time.perf_counter() - wall
                    out[kind][f"{name}_cpu_s"] = time.process_time() - cpu
                row = "   ".join(
                    f"{name} {out[kind][f'{name}_s']:6.2f} s "
                    f"(cpu {out[kind][f'{name}_cpu_s']:5.2f} s)"
                    for name, _ in calls
                )
                print(f"  {kind:26s} {row}", flush=True)
            limit = per_add_limit()
            wall, cpu = time.perf_counter(), time.process_time()
            await client.add(messages=short_turns(limit), user_id="u", session_id="short")
            out["short turns at the limit"] = {
                "turns": limit,
                "add_s": time.perf_counter() - wall,
                "add_cpu_s": time.process_time() - cpu,
            }
            row = out["short turns at the limit"]
            print(
                f"  {'short turns at the limit':26s} add of {limit} turns {row['add_s']:6.2f} s "
                f"(cpu {row['add_cpu_s']:5.2f} s)",
                flush=True,
            )
    return out


# =================================================================================
# the server, in its own process
# =================================================================================


def serve(store: str) -> None:
    import uvicorn

    from memhub import Settings
    from memhub_server.app import create_app
    from memhub_server.hub import listen
    from memhub_server.service import MemoryService

    async def main() -> None:
        service = MemoryService(Settings(storage_dir=store))
        await service.open()
        sock = listen(HOST, 0)
        app = create_app(service=service)
        server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
        )
        print(f"PORT {sock.getsockname()[1]}", flush=True)
        await server.serve(sockets=[sock])

    asyncio.run(main())


async def health_during(base: str, key: str, quick: bool) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        await http.post(
            "/v1/memories/", json={"user_id": "h", "content": "我住在上海"}, headers=headers
        )
        done = asyncio.Event()

        async def poll() -> None:
            while not done.is_set():
                start = time.perf_counter()
                await http.get("/health")
                latencies.append(time.perf_counter() - start)
                await asyncio.sleep(0.02)

        poller = asyncio.create_task(poll())
        await asyncio.sleep(3)  # quiet: the noise of the machine itself
        quiet = list(latencies)
        per_kind: dict[str, dict[str, float]] = {}
        bodies = {kind: _body(unit, quick) for kind, unit in KINDS.items()} | short_bodies()
        for kind, body in bodies.items():
            latencies.clear()
            start = time.perf_counter()
            response = await http.post("/v1/memories/", content=body, headers=headers)
            row = per_kind[kind] = {
                "status": response.status_code,
                "request_s": time.perf_counter() - start,
                "health_max_ms": 1000 * max(latencies, default=0.0),
                "polls": len(latencies),
            }
            print(
                f"  {kind:26s} request {row['request_s']:6.2f} s (HTTP {response.status_code},"
                f" {len(body) / 1024:5.0f} KiB), /health worst {row['health_max_ms']:5.0f} ms"
                f" over {len(latencies)} polls",
                flush=True,
            )
        done.set()
        await poller
    return {
        "per_kind": per_kind,
        "health_max_ms": max(v["health_max_ms"] for v in per_kind.values()),
        "quiet_max_ms": 1000 * max(quiet),
        "quiet_p50_ms": 1000 * percentile(quiet, 50),
    }


def short_bodies() -> dict[str, bytes]:
    """Adds of many short turns: the limit's worth, and two bodies of ~1 MiB over it."""

    def body(messages: list[dict[str, str]]) -> bytes:
        encoded = b""
        while not encoded or len(encoded) > (1 << 20) - 1024:  # under the body limit
            if encoded:
                messages.pop()
            data = {"user_id": "h", "session_id": "short", "messages": messages}
            encoded = json.dumps(data, ensure_ascii=False).encode()
        return encoded

    limit = per_add_limit()
    return {
        f"short turns: {limit} (limit)": body(short_turns(limit, seed=1)),
        "short turns: 2,000": body(short_turns(2000, en=490, zh=158, seed=2)),
        "short turns: ~5,000 x 200": body(short_turns(5000, en=200, zh=66, seed=3)),
    }


def _body(unit: str, quick: bool) -> bytes:
    body = {
        "user_id": "h",
        "messages": [
            {"role": "user", "content": f"{i} " + fill(unit, MESSAGE_CHARS)[2:]}
            for i in range(2 if quick else MESSAGES)
        ],
    }
    encoded = json.dumps(body, ensure_ascii=False).encode()
    while len(encoded) > (1 << 20) - 1024:  # under the body limit
        body["messages"].pop()
        encoded = json.dumps(body, ensure_ascii=False).encode()
    return encoded


async def flood(base: str, key_a: str, key_b: str, seconds: float) -> dict[str, float]:
    import httpx

    queries = ["where do I live", "我的编辑器", "what database", "周会时间", "favourite drink"]

    async def recall_b(http: httpx.AsyncClient, until: float) -> list[float]:
        out = []
        i = 0
        while time.perf_counter() < until:
            start = time.perf_counter()
            r = await http.post(
                "/v1/memories/search", json={"user_id": "b", "query": queries[i % 5] + f" {i}"}
            )
            r.raise_for_status()
            out.append(time.perf_counter() - start)
            i += 1
        return out

    async def flood_a(http: httpx.AsyncClient, until: float, n: int) -> int:
        sent = 0
        while time.perf_counter() < until:
            if sent % 3 == 2:
                body = {
                    "user_id": "a",
                    "messages": [{"role": "user", "content": fill("\u0301", 30_000) + str(n)}],
                }
                await http.post("/v1/memories/", json=body)
            else:
                await http.post(
                    "/v1/memories/search",
                    json={"user_id": "a", "query": fill("\u0301", 8000) + f"{n}.{sent}"},
                )
            sent += 1
        return sent

    limits = httpx.Limits(max_connections=16)
    async with (
        httpx.AsyncClient(
            base_url=base, timeout=120, limits=limits, headers={"Authorization": f"Bearer {key_a}"}
        ) as a,
        httpx.AsyncClient(
            base_url=base, timeout=120, headers={"Authorization": f"Bearer {key_b}"}
        ) as b,
    ):
        for fact in ("我住在上海", "My favourite editor is vim", "周会改到周三下午3点"):
            (
                await b.post("/v1/memories/", json={"user_id": "b", "content": fact})
            ).raise_for_status()
        await recall_b(b, time.perf_counter() + 2)  # warm
        quiet = await recall_b(b, time.perf_counter() + seconds)
        until = time.perf_counter() + seconds
        results = await asyncio.gather(
            recall_b(b, until), *(flood_a(a, until, n) for n in range(4))
        )
    flooded, sent = results[0], sum(results[1:])
    q95, f95 = percentile(quiet, 95), percentile(flooded, 95)
    return {
        "quiet_p95_ms": 1000 * q95,
        "flooded_p95_ms": 1000 * f95,
        "ratio": f95 / q95,
        "quiet_n": len(quiet),
        "flooded_n": len(flooded),
        "flood_requests": sent,
    }


def with_server(fn):
    from memhub_server.auth import KEYS_FILE, KeyStore

    folder = Path(tempfile.mkdtemp(prefix="memhub-adversarial-server-"))
    store = folder / "store"
    keys = KeyStore(store / KEYS_FILE)
    key_a, _ = keys.create("tenant-a")
    key_b, _ = keys.create("tenant-b")
    env = {**os.environ, "MEMHUB_CONFIG": str(folder / "config.yaml")}
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(store)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = child.stdout.readline() if child.stdout else ""
        if not line.startswith("PORT "):
            raise SystemExit(f"the server did not start (exit {child.poll()})")
        return asyncio.run(fn(f"http://{HOST}:{int(line.split()[1])}", key_a, key_b))
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


# =================================================================================
# (d) secret formats
# =================================================================================


def secret_formats() -> dict[str, int]:
    from secret_formats import rows

    from memhub.redact import redact

    table = rows()
    redacted = sum(
        secret not in redact(text).text and f"[REDACTED:{kind}]" in redact(text).text
        for _, kind, text, secret, _ in table
    )
    kept = sum(redact(near).text == near for *_, near in table)
    return {"tried": len(table), "redacted": redacted, "near_misses_kept": kept}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="2 messages per add, 5 s flood windows"
    )
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--serve", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0

    print("(a) worst add per input kind (offline, e5, heuristic judge; target <= 3 s each)")
    adds = asyncio.run(worst_adds(args.quick))
    baseline = adds.pop("plain English (baseline)")
    short = adds.pop("short turns at the limit")
    worst = {m: max(v[m] for v in adds.values()) for m in baseline}
    for metric, value in worst.items():
        print(
            f"  worst {metric:16s} {value:6.2f} s   plain English {baseline[metric]:6.2f} s   "
            f"ratio {value / max(baseline[metric], 1e-9):4.2f}   target 3 "
            f"s: {'met' if value <= 3 else 'MISSED'}"
        )

    verdict = "met" if short["add_s"] <= 3 else "MISSED"
    print(
        f"  add of {short['turns']} short turns (the per-add limit) {short['add_s']:6.2f} s "
        f"(cpu {short['add_cpu_s']:5.2f} s)   target 3 s: {verdict}"
    )

    print("(b) /health while each kind of the corpus is posted (target <= 100 ms)")
    health = with_server(lambda base, key_a, _b: health_during(base, key_a, args.quick))
    slowest = max(health["per_kind"].items(), key=lambda kv: kv[1]["request_s"])
    verdict = "met" if slowest[1]["request_s"] <= 3 else "MISSED"
    print(
        f"  slowest request {slowest[1]['request_s']:.2f} s ({slowest[0]}, HTTP "
        f"{slowest[1]['status']})   target 3 s: {verdict}"
    )
    verdict = "met" if health["health_max_ms"] <= 100 else "MISSED"
    print(
        f"  worst /health during the corpus {health['health_max_ms']:.0f} ms   target 100 ms: "
        f"{verdict}   (quiet, same run: worst {health['quiet_max_ms']:.0f} ms, "
        f"p50 {health['quiet_p50_ms']:.0f} ms)"
    )

    seconds = 5.0 if args.quick else 15.0
    print(
        f"(c) tenant B's recall while tenant A floods ({seconds:.0f} s windows; target ratio <= 3)"
    )
    noisy = with_server(lambda base, key_a, key_b: flood(base, key_a, key_b, seconds))
    print(
        f"  quiet p95 {noisy['quiet_p95_ms']:.0f} ms (n={noisy['quiet_n']}), flooded p95 "
        f"{noisy['flooded_p95_ms']:.0f} ms (n={noisy['flooded_n']}, {noisy['flood_requests']} "
        f"flood requests), "
        f"ratio {noisy['ratio']:.2f}"
    )

    formats = secret_formats()
    print(
        f"(d) secret formats redacted / tried: {formats['redacted']}/{formats['tried']}; "
        f"near misses kept: {formats['near_misses_kept']}/{formats['tried']}"
    )

    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "adds": adds,
                    "baseline": baseline,
                    "short_turns_at_limit": short,
                    "health": health,
                    "noisy_neighbour": noisy,
                    "secret_formats": formats,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
