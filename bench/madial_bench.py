"""Retrieval quality on MADial-Bench (memory-augmented dialogue, zh and en).

    python bench/madial_bench.py PATH_TO_madial [--lang zh|en|both] [--query MODE] [--json OUT]

``PATH_TO_madial`` is the folder holding ``ch/`` and ``en/`` (MIT data, read in place:
it is never copied into this repository). For each language every memory event is
written into a fresh memhub store through the public SDK::

    client.add(content=event, user_id=f"user{uid}", occurred_at=time, metadata={"madial_id": id})

so the L0 raw record and every memory extracted from it (offline heuristic extractor
and judge, real e5 embedder) carry the benchmark id. Then, for each dialogue, a query
is built from the dialogue before its first test turn (the assistant turn that should
use a memory): the user's turns, speaker labels stripped (``--query`` for the other
choices measured), and searched in that user's memories only, two ways:

* ``conversation``: ``client.search_conversation`` over the L0 raw records;
* ``memories``: ``client.search`` over the extracted memories, groups flattened in
  score order and deduplicated by ``madial_id``.

Scores (per dialogue, then averaged over the dialogues):

* ``R@5``  = |relevant ∩ top 5 distinct ids| / |relevant|   (the usual recall@k; a
  dialogue with more than 5 relevant ids cannot reach 1.0);
* ``hit@5`` = 1 if any relevant id is in the top 5, else 0;
* ``MRR``  = 1 / rank of the first relevant id in the returned list (``--limit``
  results, default 10, as an agent would call search), 0 if none.

See bench/README.md for the levers measured and the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# Baseline measured on this machine before this bench existed: e5 + BM25 hybrid,
# RRF k=60 (bench-data/README.md). R@5 only.
BASELINE_R5 = {"zh": 0.550, "en": 0.551}
TARGET_R5 = 0.65
LANG_FILES = {"zh": ("ch", "MADial-Bench-zh"), "en": ("en", "MADial-Bench-en")}
QUERY_MODES = ("user", "all", "last_user", "last2", "last3", "last4")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# =================================================================================
# data
# =================================================================================


@dataclass
class Memory:
    id: str
    time: str
    event: str
    user: int


@dataclass
class Dialogue:
    index: int
    turns: list[tuple[str, str]]  # (role, text) before the first test turn; role "user"/"assistant"
    relevant: list[str]
    user: int
    speakers: list[str] = field(default_factory=list)


def _json_lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _memories(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for obj in _json_lines(path):
        for key, value in obj.items():
            out[str(value.get("id", key))] = value
    return out


# "<Bart>: "text"" or "<Bart>:\"text\"" ; a few English lines lost their label.
_TURN = re.compile(r"^\s*<([^<>]{1,40})>\s*[:：]\s*(.*)$", re.S)


def parse_turn(line: str) -> tuple[str, str] | None:
    """(speaker, text) of one raw dialogue line, label and quotes stripped; None for <BOD>/<EOD>."""
    line = line.strip()
    if line in ("<BOD>", "<EOD>") or not line:
        return None
    m = _TURN.match(line)
    speaker, text = (m.group(1).strip(), m.group(2)) if m else ("", line)
    text = text.strip().strip('"“”').strip()
    return speaker, text


def load(root: Path, lang: str) -> tuple[list[Memory], list[Dialogue]]:
    folder, stem = LANG_FILES[lang]
    mem = _memories(root / folder / f"{stem}-memory.json")
    raw_dialogues = _json_lines(root / folder / f"{stem}-dialogue.json")

    # Whose memory is it? The zh memory file has "user-id"; the en one does not.
    # The en events are translations of the zh events with the same ids, so the zh
    # file is the primary source of the owner (it covers every en id; checked: it
    # never disagrees with the dialogues). The dialogues' "user-id" + "relevant-id"
    # are the fallback, but alone they would miss the 11 en memories that no dialogue
    # marks relevant, and those must still be in the store as distractors.
    owner: dict[str, int] = {}
    for d in raw_dialogues:
        for rid in d["relevant-id"]:
            owner.setdefault(str(rid), int(d["user-id"]))
    if lang != "zh":
        zh_folder, zh_stem = LANG_FILES["zh"]
        zh_path = root / zh_folder / f"{zh_stem}-memory.json"
        if zh_path.exists():
            owner.update(
                {k: int(v["user-id"]) for k, v in _memories(zh_path).items() if "user-id" in v}
            )
    memories = []
    for mid, v in mem.items():
        user = v.get("user-id", owner.get(mid))
        if user is None:
            raise SystemExit(f"{lang}: cannot tell whose memory {mid} is")
        memories.append(Memory(mid, v["time"], v["event"], int(user)))

    dialogues = []
    for i, d in enumerate(raw_dialogues):
        test = min(d["test-turn"])  # the first turn that should use a memory
        turns, speakers = [], []
        for line in d["dialogue"][:test]:
            parsed = parse_turn(line)
            if parsed is None:
                continue
            speaker, text = parsed
            speakers.append(speaker)
            turns.append((speaker, text))
        dialogues.append(
            Dialogue(i, turns, [str(r) for r in d["relevant-id"]], int(d["user-id"]), speakers)
        )
    # Role of each turn: "assistant" for the assistant, "user" for the user's name
    # label. 23 en lines lost their label: the dialogues strictly alternate user,
    # assistant, ... (true of every labelled dialogue), so the position decides.
    for d in dialogues:
        d.turns = [
            ("assistant" if (s.lower() == "assistant" if s else i % 2) else "user", t)
            for i, (s, t) in enumerate(d.turns)
        ]
    return memories, dialogues


# =================================================================================
# queries
# =================================================================================


def build_query(turns: list[tuple[str, str]], mode: str) -> str:
    """The search query an agent would send at the test turn, speaker labels stripped.

    ``user`` (the default): the user's turns so far, as ``memhub.retrieval.query.from_messages``
    builds it from the OpenAI-style conversation. The other modes are the levers it was
    chosen from: ``all``: every turn so far; ``last_user``: the last user turn;
    ``lastN``: the last N turns (both speakers).
    """
    if mode == "user":
        from memhub.retrieval.query import from_messages

        return from_messages([{"role": role, "content": text} for role, text in turns])
    if mode == "all":
        texts = [t for _, t in turns]
    elif mode == "last_user":
        texts = [t for r, t in turns if r == "user"][-1:]
    elif mode.startswith("last") and mode[4:].isdigit():
        texts = [t for _, t in turns][-int(mode[4:]) :]
    else:
        raise ValueError(f"unknown query mode {mode!r}")
    return "\n".join(texts) or (turns[-1][1] if turns else "")


# =================================================================================
# scoring
# =================================================================================


def dedupe(ids: list[str | None]) -> list[str]:
    seen: dict[str, None] = {}
    for i in ids:
        if i is not None and i not in seen:
            seen[i] = None
    return list(seen)


def score(ranked: list[str], relevant: list[str], k: int = 5) -> dict[str, float]:
    rel = set(relevant)
    top = ranked[:k]
    found = len(rel & set(top))
    rr = next((1.0 / (i + 1) for i, mid in enumerate(ranked) if mid in rel), 0.0)
    return {"r5": found / len(rel), "hit5": float(found > 0), "mrr": rr}


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]} if rows else {}


# =================================================================================
# running memhub
# =================================================================================


async def open_client(tmp: Path):
    from memhub import MemoryClient
    from memhub.config import Settings

    # A config file of its own (so ~/.memhub is never read or written) and no MEMHUB_*
    # environment: offline heuristic extractor and judge, default e5 embedder, whatever
    # keys the shell holds.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHUB_")}
    settings = Settings.load(
        config_path=tmp / "config.yaml", env=env, storage_dir=str(tmp / "store")
    )
    (tmp / "cwd").mkdir(exist_ok=True)  # no git checkout: no repository/branch scope
    client = MemoryClient(settings=settings, cwd=tmp / "cwd")
    await client.open()
    return client


async def index(client, memories: list[Memory]) -> tuple[dict[str, str], Counter]:
    """Write every event (per user, in time order); L0 record id -> madial id, and the judge's
    actions.
    """
    raw_to_mid: dict[str, str] = {}
    actions: Counter = Counter()
    for m in sorted(
        memories, key=lambda m: (m.user, m.time, int(m.id) if m.id.isdigit() else m.id)
    ):
        res = await client.add(
            content=m.event,
            user_id=f"user{m.user}",
            occurred_at=m.time,
            metadata={"madial_id": m.id},
        )
        for rid in res.raw_ids:
            raw_to_mid[rid] = m.id
        actions.update(d.action for d in res.decisions)
        actions["_candidates"] += len(res.decisions)
    return raw_to_mid, actions


async def rank_conversation(
    client, query: str, user: int, raw_to_mid: dict[str, str], limit: int
) -> list[str]:
    res = await client.search_conversation(query, user_id=f"user{user}", limit=limit)
    return dedupe([raw_to_mid.get(t.id) for t in res.turns])


async def rank_memories(client, query: str, user: int, limit: int) -> list[str]:
    res = await client.search(query, user_id=f"user{user}", limit=limit)
    items = sorted(
        res.memories.all(), key=lambda m: (-(m.score or 0.0), m.id)
    )  # the order hybrid() ranked them
    return dedupe([m.metadata.get("madial_id") for m in items])


async def evaluate(
    client, dialogues: list[Dialogue], raw_to_mid: dict[str, str], *, mode: str, limit: int
) -> dict[str, dict[str, float]]:
    rows: dict[str, list[dict[str, float]]] = {"conversation": [], "memories": []}
    for d in dialogues:
        q = build_query(d.turns, mode)
        rows["conversation"].append(
            score(await rank_conversation(client, q, d.user, raw_to_mid, limit), d.relevant)
        )
        rows["memories"].append(score(await rank_memories(client, q, d.user, limit), d.relevant))
    return {method: mean(r) for method, r in rows.items()}


async def run_lang(root: Path, lang: str, *, mode: str, limit: int) -> dict:
    memories, dialogues = load(root, lang)
    with tempfile.TemporaryDirectory(prefix=f"memhub-madial-{lang}-") as tmp:
        client = await open_client(Path(tmp))
        try:
            t0 = time.perf_counter()
            raw_to_mid, actions = await index(client, memories)
            t_index = time.perf_counter() - t0
            log(f"{lang}: {len(memories)} events written in {t_index:.1f}s; judge: {dict(actions)}")
            t0 = time.perf_counter()
            figures = await evaluate(client, dialogues, raw_to_mid, mode=mode, limit=limit)
            t_eval = time.perf_counter() - t0
            log(f"{lang}: {len(dialogues)} dialogues x 2 methods in {t_eval:.1f}s")
        finally:
            await client.aclose()
    return {
        "lang": lang,
        "memories": len(memories),
        "dialogues": len(dialogues),
        "query": mode,
        "limit": limit,
        "index_s": round(t_index, 1),
        "eval_s": round(t_eval, 1),
        "write_actions": dict(actions),
        "methods": figures,
    }


def print_table(results: list[dict]) -> None:
    head = (
        f"{'lang':<5}{'method':<14}{'R@5':>7}{'hit@5':>7}{'MRR':>7}  "
        f" {'baseline R@5':>12}{'ratio':>7}   target R@5 >= {TARGET_R5}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        base = BASELINE_R5[r["lang"]]
        for method, f in r["methods"].items():
            verdict = "PASS" if f["r5"] >= TARGET_R5 else "MISS"
            print(
                f"{r['lang']:<5}{method:<14}{f['r5']:>7.3f}{f['hit5']:>7.3f}{f['mrr']:>7.3f}   "
                f"{base:>12.3f}{f['r5'] / base:>7.2f}   {verdict}"
            )
    if results:
        print(
            f"\nquery = {results[0]['query']!r} (dialogue before the first test turn), search "
            f"limit = {results[0]['limit']}; R@5 = |relevant in top 5| / |relevant|, averaged over "
            f"dialogues; ratio = R@5 / baseline (hybrid RRF k=60)."
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", type=Path, help="the madial folder (holding ch/ and en/)")
    ap.add_argument("--lang", choices=("zh", "en", "both"), default="both")
    ap.add_argument(
        "--query",
        choices=QUERY_MODES,
        default="user",
        help="how the query is built (default: user)",
    )
    ap.add_argument(
        "--limit", type=int, default=10, help="search limit (MRR is over this many results)"
    )
    ap.add_argument("--json", type=Path, help="also write every figure here")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    langs = ("zh", "en") if args.lang == "both" else (args.lang,)
    results = [
        asyncio.run(run_lang(args.path, lang, mode=args.query, limit=args.limit)) for lang in langs
    ]
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
