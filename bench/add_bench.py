"""The cost of ``add()``: latency offline, and model calls per write with an LLM.

    python bench/add_bench.py [--json OUT]

(a) **Latency, offline**: a fresh store, the real e5 embedder and the default
    heuristic extractor and judge. 100 realistic zh/en statements
    (``add(content=...)``) and 20 multi-turn zh/en conversations
    (``add(messages=...)``), one user; p50/p95 of each ``add()``.
(b) **LLM calls per add**: the same pipeline with a counting
    ``memhub.testing.ScriptedLLM`` playing the extractor and the judge, over a
    50-session scripted workload where later sessions revisit earlier facts. The
    extractor answers with the user's own sentences as candidates; the judge answers
    OVERRIDE for a neighbour about the same attribute with another value, ADD when no
    neighbour is about the candidate's attribute (and NOOP for a word-for-word repeat). The judge is
    called only when a candidate has an existing memory at or above
    ``reconcile_relation_threshold`` (0.6), so the figures show how often the
    threshold saves the call, and whether it skips revisits it should not.

Target: at most 2 model calls per add (one extraction, at most one judge call).
Everything runs in a temp directory (``MEMHUB_CONFIG`` included); nothing touches
the network or ``~/.memhub``. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _util import percentile, real_facts  # noqa: E402

MAX_CALLS_PER_ADD = 2
DEFAULT_THRESHOLD = 0.6  # Settings.reconcile_relation_threshold


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


async def open_client(tmp: Path, reconcile_relation_threshold: float | None = None, **kwargs):
    from memhub import MemoryClient
    from memhub.config import Settings

    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHUB_")}  # no keys: offline
    settings = Settings.load(
        config_path=tmp / "config.yaml",
        env=env,
        storage_dir=str(tmp / "store"),
        reconcile_relation_threshold=reconcile_relation_threshold,
    )
    (tmp / "cwd").mkdir(exist_ok=True)
    client = MemoryClient(settings=settings, cwd=tmp / "cwd", **kwargs)
    await client.open()
    return client


# =================================================================================
# (a) latency
# =================================================================================

_CONVERSATIONS_ZH = (
    (
        "我最近在学 Rust，准备把日志服务重写一遍",
        "听起来不错，性能会好很多",
        "对，目标是把延迟降到 5 毫秒以内",
        "需要我帮你列个计划吗？",
    ),
    ("下周三我要去杭州出差", "好的，需要我提醒你订酒店吗？", "要的，最好订西湖附近的", "记下了"),
    (
        "我们团队决定从 MySQL 迁移到 PostgreSQL 16",
        "迁移计划定了吗？",
        "定了，十月底之前完成",
        "好的",
    ),
    (
        "我对花生过敏，订餐的时候注意一下",
        "明白，以后会避开含花生的菜",
        "还有，我不吃香菜",
        "好的，都记住了",
    ),
    ("我女儿下个月上小学了", "恭喜！是哪所学校？", "实验小学，离家走路十分钟", "很方便"),
    ("我平时用 Neovim 写代码", "有常用的插件吗？", "主要是 telescope 和 lsp", "好的"),
    (
        "周五下午三点和产品经理开需求评审会",
        "需要准备什么材料？",
        "把上个月的用户反馈整理一下",
        "好的，我会提醒你",
    ),
    ("我每天早上跑步五公里", "坚持多久了？", "差不多两年了", "很厉害"),
    ("项目的预算今年砍了百分之二十", "会影响招聘吗？", "会，今年只招两个后端", "了解"),
    ("我下个月搬去深圳南山区", "需要帮忙找房子吗？", "已经找好了，离公司很近", "太好了"),
)
_CONVERSATIONS_EN = (
    (
        "I just switched our CI from Jenkins to GitHub Actions",
        "How did the migration go?",
        "Smoothly, builds are twice as fast now",
        "Great",
    ),
    (
        "My manager is Dana, she joined in March",
        "Got it",
        "We have one-on-ones every Tuesday at 10",
        "I'll remember that",
    ),
    (
        "I'm vegetarian, please keep that in mind for the team dinner",
        "Noted",
        "Also no mushrooms for me",
        "Understood",
    ),
    (
        "We're launching the mobile app on June 12",
        "Exciting! Anything I should track?",
        "The App Store review, it usually takes three days",
        "Okay",
    ),
    (
        "I prefer dark mode and a 14pt font in every editor",
        "Sure",
        "And tabs set to four spaces",
        "Noted",
    ),
    (
        "My daughter plays violin, her recital is next Saturday",
        "Lovely",
        "It starts at 6pm at the community hall",
        "I'll remind you",
    ),
    (
        "Our on-call rotation changed to weekly shifts",
        "Who's first?",
        "Me, starting Monday",
        "Good luck",
    ),
    (
        "I moved the side project to Fly.io because Heroku got too expensive",
        "Makes sense",
        "The bill went from 50 to 12 dollars",
        "Nice saving",
    ),
    (
        "I'm learning Japanese, I practice 20 minutes every evening",
        "How far along are you?",
        "I just finished the N4 textbook",
        "Well done",
    ),
    (
        "The staging database is refreshed from production every Sunday night",
        "Good to know",
        "So don't run migrations there on Sundays",
        "Understood",
    ),
)


def conversations() -> list[list[dict]]:
    out = []
    for turns in _CONVERSATIONS_ZH + _CONVERSATIONS_EN:
        out.append(
            [
                {"role": "user" if i % 2 == 0 else "assistant", "content": t}
                for i, t in enumerate(turns)
            ]
        )
    return out


async def latency(tmp: Path) -> dict:
    client = await open_client(tmp)
    try:
        await client.add(content="warm-up: the model loads on the first write", user_id="warmup")
        statements, convs = [], []
        for fact in real_facts(100):
            t0 = time.perf_counter()
            await client.add(content=fact, user_id="alice")
            statements.append((time.perf_counter() - t0) * 1000)
        for msgs in conversations():
            t0 = time.perf_counter()
            await client.add(messages=msgs, user_id="alice")
            convs.append((time.perf_counter() - t0) * 1000)
    finally:
        await client.aclose()

    def stats(ms: list[float]) -> dict:
        return {
            "n": len(ms),
            "p50_ms": percentile(ms, 50),
            "p95_ms": percentile(ms, 95),
            "max_ms": max(ms),
        }

    return {"statements": stats(statements), "conversations": stats(convs)}


# =================================================================================
# (b) model calls per add
# =================================================================================

# Attributes of one user, each with the values it takes over time (first = first stated).
_SLOTS = {
    "city": ["I live in Shanghai", "I moved to Berlin last month", "I live in Lisbon now"],
    "employer": [
        "I work at Acme Robotics as a backend engineer",
        "I joined Globex as a staff engineer",
    ],
    "editor": ["I write code in VS Code", "I switched my editor to Neovim"],
    "database": ["Our main database is MySQL 8", "We migrated the main database to PostgreSQL 16"],
    "coffee": [
        "I drink two cups of coffee every morning",
        "I quit coffee, I only drink green tea now",
    ],
    "standup": ["Our team standup is at 9:30 every day", "The team standup moved to 10:00"],
    "pet": ["I have a cat named Miso", "I adopted a second cat, her name is Tofu"],
    "language": [
        "My favourite programming language is Python",
        "My favourite programming language is now Rust",
    ],
    "zh_city": ["我住在杭州", "我搬到成都了"],
    "zh_team": ["我们组有六个人", "我们组现在扩到了十个人"],
    "zh_food": ["我最喜欢吃川菜", "我现在更喜欢吃粤菜"],
    "zh_deadline": ["支付项目十月底上线", "支付项目推迟到十二月上线"],
}
_REPLIES = ["Got it.", "Noted, thanks!", "好的，记住了。", "明白。"]


def workload(seed: int = 5) -> list[dict]:
    """50 sessions: 20 that state new things, then 30 that also revisit earlier attributes.

    Each session is one ``add(messages=...)`` of 1-2 user turns with assistant replies.
    A line of a later session changes an earlier attribute (45%), states its current
    value again (15%) or says something new (40%); ``changes`` and ``restates`` list
    the attributes a session gives a new value or states again. New things are the attributes not
    stated yet, then
    distinct realistic facts (``_util.real_facts``).
    """
    rng = random.Random(seed)
    new_facts = real_facts(60, seed=23)
    stated: dict[str, int] = {}
    sessions = []
    for i in range(50):
        lines, changes, restates = [], [], []
        for _ in range(rng.choice((1, 2))):
            fresh = [s for s in _SLOTS if s not in stated]
            changeable = [s for s in stated if stated[s] + 1 < len(_SLOTS[s])]
            r = rng.random()
            if i >= 20 and changeable and r < 0.45:
                slot = rng.choice(changeable)
                stated[slot] += 1
                lines.append(_SLOTS[slot][stated[slot]])
                changes.append(slot)
            elif i >= 20 and stated and r < 0.6:
                slot = rng.choice(sorted(stated))
                lines.append(_SLOTS[slot][stated[slot]])
                restates.append(slot)
            elif fresh and rng.random() < 0.5:
                slot = rng.choice(fresh)
                stated[slot] = 0
                lines.append(_SLOTS[slot][0])
            else:
                lines.append(new_facts.pop())
        msgs = []
        for line in lines:
            msgs += [
                {"role": "user", "content": line},
                {"role": "assistant", "content": rng.choice(_REPLIES)},
            ]
        sessions.append({"messages": msgs, "changes": changes, "restates": restates})
    return sessions


def _slot_of(text: str) -> str | None:
    norm = text.strip().rstrip(".。")
    for slot, values in _SLOTS.items():
        if any(norm == v.rstrip(".。") for v in values):
            return slot
    return None


_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<role>user|assistant): (?P<text>.*)$")


def scripted_answer(system: str, user: str) -> dict:
    """The extractor and the judge, scripted (the prompts tell the two roles apart)."""
    from memhub.providers.llm_roles import EXTRACT_PROMPT, JUDGE_PROMPT

    if system == EXTRACT_PROMPT:
        candidates = []
        for line in user.splitlines():
            m = _LINE.match(line)
            if m and m["role"] == "user":
                text = m["text"].strip()
                layer = "profile" if _slot_of(text) else "fact"
                candidates.append(
                    {"text": text, "layer": layer, "proactive": False, "source_ids": [m["id"]]}
                )
        return {"candidates": candidates}
    if system == JUDGE_PROMPT:
        verdicts = []
        for item in json.loads(user):
            slot = _slot_of(item["candidate"])
            same = [n for n in item["existing"] if slot and _slot_of(n["content"]) == slot]
            if (
                same and same[0]["content"] == item["candidate"]
            ):  # said again: what a real judge does
                verdict = {"action": "NOOP", "targets": [same[0]["id"]], "update_type": "duplicate"}
            elif same:
                verdict = {
                    "action": "OVERRIDE",
                    "targets": [same[0]["id"]],
                    "update_type": "value_change",
                }
            else:
                verdict = {"action": "ADD"}
            verdicts.append({"index": item["index"], "reason": "scripted", **verdict})
        return {"verdicts": verdicts}
    raise AssertionError(f"unexpected prompt: {system[:60]!r}")


async def llm_calls(tmp: Path, threshold: float) -> dict:
    from memhub.providers.llm_roles import JUDGE_PROMPT
    from memhub.testing import ScriptedLLM

    llm = ScriptedLLM(scripted_answer)
    client = await open_client(tmp, llm=llm, reconcile_relation_threshold=threshold)
    rows = []
    try:
        for session in workload():
            before = len(llm.prompts)
            res = await client.add(messages=session["messages"], user_id="bob")
            prompts = llm.prompts[before:]
            overridden = {_slot_of(d.candidate) for d in res.decisions if d.action == "OVERRIDE"}
            rows.append(
                {
                    "calls": len(prompts),
                    "judge": sum(1 for system, _ in prompts if system == JUDGE_PROMPT),
                    "candidates": res.extracted_count,
                    "changes": session["changes"],
                    "restates": session["restates"],
                    "changes_applied": sum(s in overridden for s in session["changes"]),
                    "actions": [d.action for d in res.decisions],
                }
            )
        active = {m.content for m in await client.list(user_id="bob")}
    finally:
        await client.aclose()
    stale = [slot for slot, values in _SLOTS.items() if sum(v in active for v in values) > 1]
    calls = [r["calls"] for r in rows]
    with_candidates = [r for r in rows if r["candidates"]]
    revisits = [r for r in rows if r["changes"] or r["restates"]]
    others = [r for r in with_candidates if not (r["changes"] or r["restates"])]
    actions: dict[str, int] = {}
    for r in rows:
        for a in r["actions"]:
            actions[a] = actions.get(a, 0) + 1
    return {
        "threshold": threshold,
        "adds": len(rows),
        "calls_total": sum(calls),
        "calls_mean": sum(calls) / len(calls),
        "calls_max": max(calls),
        "judge_calls": sum(r["judge"] for r in rows),
        "judge_skipped": sum(1 for r in with_candidates if not r["judge"]),
        "adds_with_candidates": len(with_candidates),
        "revisit_adds": len(revisits),
        "revisit_judged": sum(1 for r in revisits if r["judge"]),
        "other_adds": len(others),
        "other_judged": sum(1 for r in others if r["judge"]),
        "changes": sum(len(r["changes"]) for r in rows),
        "changes_applied": sum(r["changes_applied"] for r in rows),
        "stale_attributes": stale,
        "actions": actions,
    }


# =================================================================================


def print_report(lat: dict, runs: list[dict]) -> None:
    print("(a) add() latency, offline (real e5, heuristic extractor and judge)")
    print(f"{'workload':<36}{'n':>5}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for key, label in (
        ("statements", "add(content=...) zh/en statement"),
        ("conversations", "add(messages=...) 4-turn zh/en chat"),
    ):
        s = lat[key]
        print(f"{label:<36}{s['n']:>5}{s['p50_ms']:>10.1f}{s['p95_ms']:>10.1f}{s['max_ms']:>10.1f}")
    print(
        f"\n(b) model calls per add (ScriptedLLM as extractor and judge, "
        f"{runs[0]['adds']} sessions, {runs[0]['revisit_adds']} revisit "
        f"earlier attributes, {runs[0]['changes']} value changes)"
    )
    head = (
        f"{'threshold':>9}{'calls/add':>11}{'max':>5}{'judge skipped':>15}{'revisits judged':>17}"
        f"{'new-only judged':>17}{'changes applied':>17}  stale attributes at the end"
    )
    print(head)
    for c in runs:
        default = " (default)" if c["threshold"] == DEFAULT_THRESHOLD else ""
        verdict = "PASS" if c["calls_max"] <= MAX_CALLS_PER_ADD else "MISS"
        print(
            f"{c['threshold']:>9.2f}{c['calls_mean']:>11.2f}{c['calls_max']:>5}"
            f"{c['judge_skipped']:>8} / {c['adds_with_candidates']:<4}{c['revisit_judged']:>10} "
            f"/ {c['revisit_adds']:<4}"
            f"{c['other_judged']:>10} / {c['other_adds']:<4}{c['changes_applied']:>10} "
            f"/ {c['changes']:<4}"
            f"  {len(c['stale_attributes'])} {c['stale_attributes']}  max<=2 {verdict}{default}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--thresholds",
        default=f"{DEFAULT_THRESHOLD},0.45,0.3",
        help="reconcile_relation_threshold values for (b) (default: %(default)s)",
    )
    ap.add_argument("--json", type=Path, help="also write every figure here")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    with tempfile.TemporaryDirectory(prefix="memhub-add-bench-") as tmp:
        t0 = time.perf_counter()
        (Path(tmp) / "a").mkdir()
        lat = asyncio.run(latency(Path(tmp) / "a"))
        log(f"(a) done in {time.perf_counter() - t0:.0f}s")
        runs = []
        for threshold in (float(t) for t in args.thresholds.split(",")):
            t0 = time.perf_counter()
            folder = Path(tmp) / f"b{threshold}"
            folder.mkdir()
            runs.append(asyncio.run(llm_calls(folder, threshold)))
            log(f"(b) threshold {threshold} done in {time.perf_counter() - t0:.0f}s")
    print_report(lat, runs)
    if args.json:
        args.json.write_text(json.dumps({"latency": lat, "llm_calls": runs}, indent=2))


if __name__ == "__main__":
    main()
