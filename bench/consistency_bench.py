"""Is the memory right after many sessions? Stale values, duplicates, noise, kept facts.

    python bench/consistency_bench.py [--users 16] [--json OUT]

A multi-session workload written for this bench (not the unit-test stories): each
user talks over several sessions, one ``add(messages=...)`` per session with its own
``session_id`` (as every adapter writes), offline (bundled e5, heuristic extractor and
judge). A user's timeline states attributes (city, employer, phone, car, database
version, meeting time, habits...), later changes some of them, repeats earlier facts in
other words, and mixes in requests, reactions and small talk. Afterwards:

- **stale in top-3**: changed attributes whose old value a ``search`` for the attribute
  still shows among its top 3 current memories (target ≤ 5%);
- **new value current**: changed attributes whose new value is a current memory;
- **duplicates**: extra current copies of a fact stated more than once (target 0);
- **noise stored**: requests/reactions/small-talk messages that produced a fact or
  profile memory (target ≤ 5%);
- **durable kept**: durable statements that are current memories (target ≥ 95%);
- **add p50**: latency of one session's ``add`` (target: not worse than the baseline by
  more than 20%).

The baseline column is the same bench run on the product before cross-session
reconciliation (commit da6f434), on this machine; see bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _util import percentile  # noqa: E402

# Measured with this script on commit da6f434 (before the cross-session work), --users 16.
BASELINE = {
    "stale_in_top3": 0.94,
    "new_value_current": 1.0,
    "duplicates": 33,
    "noise_stored": 0.58,
    "durable_kept": 1.0,
    "add_p50_ms": 251.0,
}

# (attribute, lang, first statement, change statement, query, old value pool, new value pool)
ATTRIBUTES = [
    (
        "residence",
        "en",
        "I live in {v} with my partner.",
        "Just moved to {v}, still unpacking boxes.",
        "where does the user live",
        ["Boston", "Chicago", "Denver"],
        ["Portland", "Atlanta", "Phoenix"],
    ),
    (
        "employer",
        "en",
        "I work at {v} on the payments team.",
        "Last week I started a new job at {v}.",
        "which company does the user work for",
        ["Oracle", "Intel", "Cisco"],
        ["Shopify", "Atlassian", "Datadog"],
    ),
    (
        "phone",
        "en",
        "My phone is an {v}.",
        "I switched to a {v} last weekend.",
        "what phone does the user have",
        ["iPhone 11", "iPhone 13"],
        ["Pixel 9", "Galaxy S24"],
    ),
    (
        "vehicle",
        "en",
        "I drive a {v} to work.",
        "I sold my old car and bought a {v}.",
        "what car does the user drive",
        ["Honda Accord", "Ford Focus"],
        ["Tesla Model Y", "Toyota Prius"],
    ),
    (
        "db",
        "en",
        "Our service runs on {v}.",
        "We upgraded the service to {v}.",
        "postgres version of the service",
        ["PostgreSQL 13", "PostgreSQL 14"],
        ["PostgreSQL 16", "PostgreSQL 17"],
    ),
    (
        "meeting",
        "en",
        "Our team standup is at 9am.",
        "The team standup moved to {v}.",
        "when is the standup",
        ["9am"],
        ["10:30am", "11am"],
    ),
    (
        "habit",
        "en",
        "I drink {v} every morning.",
        "I quit {v} for good.",
        "morning drink",
        ["coffee"],
        ["coffee"],
    ),
    (
        "job",
        "en",
        "I'm a {v}.",
        "I'm now a {v} after the reorg.",
        "the user's job",
        ["data analyst", "QA engineer"],
        ["product manager", "engineering manager"],
    ),
    (
        "residence",
        "zh",
        "我现在住在{v}",
        "上周刚搬家到{v}",
        "用户住在哪里",
        ["广州", "南京", "武汉"],
        ["苏州", "厦门", "青岛"],
    ),
    (
        "employer",
        "zh",
        "我在{v}上班，做后端开发",
        "我上个月入职了{v}",
        "用户在哪家公司",
        ["京东", "百度", "网易"],
        ["小红书", "拼多多", "快手"],
    ),
    (
        "phone",
        "zh",
        "我平时用的手机是{v}",
        "我换成了{v}，旧手机送人了",
        "用户的手机",
        ["iPhone 13", "小米 13"],
        ["华为 Mate 60", "iPhone 16"],
    ),
    (
        "vehicle",
        "zh",
        "我开{v}上下班",
        "我把车卖了，换了一辆{v}",
        "用户开什么车",
        ["大众朗逸", "丰田凯美瑞"],
        ["比亚迪汉", "特斯拉 Model 3"],
    ),
    (
        "db",
        "zh",
        "我们的服务跑在 {v} 上",
        "服务的数据库已经升级到 {v}",
        "服务的 PostgreSQL 版本",
        ["PostgreSQL 13", "PostgreSQL 14"],
        ["PostgreSQL 16", "PostgreSQL 17"],
    ),
    (
        "meeting",
        "zh",
        "周会定在每周二下午三点",
        "周会挪到{v}了",
        "周会时间",
        ["周二下午三点"],
        ["周四下午三点", "周五上午十点"],
    ),
    ("habit", "zh", "我每天都喝两杯{v}", "医生让我戒了{v}", "用户喝咖啡吗", ["咖啡"], ["咖啡"]),
    (
        "job",
        "zh",
        "我的工作是{v}",
        "我转岗做{v}了",
        "用户的职业",
        ["测试工程师", "数据分析师"],
        ["产品经理", "架构师"],
    ),
]

DURABLE = {
    "en": [
        ("My sister Anna is getting married in June.", "Anna"),
        ("I'm learning Japanese on weekends.", "Japanese"),
        ("Our team ships releases every other Tuesday.", "every other Tuesday"),
        ("I have a peanut allergy.", "peanut"),
        ("I'm a big fan of Studio Ghibli movies.", "Ghibli"),
        ("My manager's name is Priya.", "Priya"),
        ("We store user uploads in S3.", "S3"),
        ("I run 5k every Saturday morning.", "5k"),
        ("My son plays soccer on Sundays.", "soccer"),
        ("I prefer window seats on flights.", "window seat"),
        ("My daughter's school starts at 8:15.", "8:15"),
        ("I'm lactose intolerant.", "lactose"),
        ("We deploy with Terraform.", "Terraform"),
        ("My partner's name is Sam.", "Sam"),
        ("I'm saving up for a house.", "house"),
    ],
    "zh": [
        ("我妹妹下个月结婚", "妹妹"),
        ("我周末在学日语", "日语"),
        ("我们组每两周发一次版", "两周"),
        ("我对芒果过敏", "芒果"),
        ("我很喜欢宫崎骏的电影", "宫崎骏"),
        ("我的领导叫张伟", "张伟"),
        ("用户上传的文件存在 OSS 里", "OSS"),
        ("我每周六早上跑五公里", "五公里"),
        ("我女儿在学钢琴", "钢琴"),
        ("我坐飞机喜欢靠窗", "靠窗"),
        ("我女儿的学校八点一刻上课", "八点一刻"),
        ("我乳糖不耐受", "乳糖"),
        ("我们用 Terraform 部署", "Terraform"),
        ("我爱人叫李娜", "李娜"),
        ("我在攒钱买房", "买房"),
    ],
}

REPEAT_PREFIX = {
    "en": ["As I said, ", "Like I mentioned before, ", "Just so you know, ", ""],
    "zh": ["我之前说过，", "再说一遍，", "跟你说过的，", ""],
}

NOISE = {
    "en": [
        "Could you rephrase that?",
        "Give me three title ideas",
        "Hmm, not sure yet",
        "That answer doesn't help",
        "Wait, what did I tell you about my job?",
        "Please forget that last part",
        "lol",
        "Can you make it shorter?",
        "Explain it like I'm five",
        "Perfect, thank you!",
        "I'll get back to you on that",
        "Don't save this",
        "Show me the code again",
        "Nope, that's wrong",
        "Sure, go ahead",
        "Summarize our chat so far",
        "Hold that thought",
        "Try again with a friendlier tone",
        "Why would you say that?",
        "Interesting, go on",
        "That's not quite it",
        "Make it rhyme",
        "You misunderstood me",
        "OK cool, next question",
    ],
    "zh": [
        "帮我把这段话改短一点",
        "再详细一点",
        "这个不对吧",
        "好的，明白了",
        "我再考虑考虑",
        "刚才那句别记",
        "给我讲讲量子计算",
        "你刚才说什么？",
        "嗯嗯",
        "换个说法",
        "这回答没用",
        "先这样吧",
        "能不能举个例子",
        "谢啦",
        "我问的不是这个",
        "帮我查一下明天的天气",
        "你理解错了",
        "这个例子不错",
        "能再快一点吗",
        "先别管这个",
        "下一个问题",
        "用英文回答",
        "有点意思",
        "不是这样的",
    ],
}

ACK = {"en": "Got it.", "zh": "好的，记住了。"}


@dataclass
class Change:
    query: str
    old: str
    new: str


@dataclass
class Timeline:
    user: str
    lang: str
    sessions: list[list[str]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)  # key of each fact stated twice or more
    durable: list[str] = field(default_factory=list)
    noise: list[str] = field(default_factory=list)


def timeline(rng: random.Random, user: str, lang: str) -> Timeline:
    """Six to eight sessions: attributes, then changes, repeats and noise between them."""
    t = Timeline(user, lang)
    attrs = [a for a in ATTRIBUTES if a[1] == lang]
    chosen = rng.sample(attrs, 4)
    durable = rng.sample(DURABLE[lang], 4)
    noise = rng.sample(NOISE[lang], 6)
    sessions: list[list[str]] = [[] for _ in range(rng.randint(6, 8))]
    first_half, second_half = sessions[: len(sessions) // 2], sessions[len(sessions) // 2 :]
    for key, _, first, changed, query, olds, news in chosen:
        old, new = rng.choice(olds), rng.choice(news)
        rng.choice(first_half).append(first.format(v=old))
        if rng.random() < 0.75:
            rng.choice(second_half).append(changed.format(v=new))
            t.changes.append(
                Change(query, old, new if key != "habit" else ("quit" if lang == "en" else "戒了"))
            )
    for text, key in durable:
        rng.choice(first_half).append(text)
        t.durable.append(key)
        if rng.random() < 0.5:
            rng.choice(second_half).append(rng.choice(REPEAT_PREFIX[lang]) + text)
            t.repeated.append(key)
    for text in noise:
        rng.choice(sessions).append(text)
        t.noise.append(text)
    t.sessions = [s for s in sessions if s]
    return t


def as_messages(texts: list[str], lang: str) -> list[dict]:
    out = []
    for text in texts:
        out += [{"role": "user", "content": text}, {"role": "assistant", "content": ACK[lang]}]
    return out


async def run(users: int, seed: int) -> dict:
    from memhub import MemoryClient
    from memhub.embed.e5 import E5Embedder

    rng = random.Random(seed)
    timelines = [timeline(rng, f"u{i:02d}", "en" if i % 2 else "zh") for i in range(users)]
    tmp = Path(tempfile.mkdtemp(prefix="memhub-consistency-"))
    os.environ["MEMHUB_CONFIG"] = str(tmp / "config.yaml")
    latencies, noise_written, stale, fresh, dupes, kept = [], 0, 0, 0, 0, 0
    misses: list[str] = []
    async with MemoryClient(storage_dir=tmp / "store", embed=E5Embedder(), cwd=tmp) as client:
        for t in timelines:
            noise_keys = set(t.noise)
            for i, texts in enumerate(t.sessions):
                started = time.perf_counter()
                result = await client.add(
                    messages=as_messages(texts, t.lang), user_id=t.user, session_id=f"s{i}"
                )
                latencies.append((time.perf_counter() - started) * 1000)
                for d in result.decisions:
                    if d.memory_id and any(_from(d.candidate, n) for n in noise_keys):
                        noise_written += 1
                        misses.append(f"noise stored: {d.candidate!r}")
            current = [m.content for m in await client.list(user_id=t.user)]
            for c in t.changes:
                groups = (await client.search(c.query, user_id=t.user, limit=3)).memories
                top = sorted(
                    [*groups.profile, *groups.proactive, *groups.normal],
                    key=lambda m: -(m.score or 0),
                )[:3]
                shown_stale = any(c.old in m.content and c.new not in m.content for m in top)
                stale += shown_stale
                fresh += any(c.new in m for m in current)
                if shown_stale or not any(c.new in m for m in current):
                    misses.append(f"change {c.old!r} -> {c.new!r}: top {[m.content for m in top]}")
            for key in t.repeated:
                copies = [m for m in current if key in m]
                dupes += max(0, len(copies) - 1)
                if len(copies) > 1:
                    misses.append(f"duplicates: {copies}")
            kept += sum(any(key in m for m in current) for key in t.durable)
            misses += [
                f"durable lost: {key!r} in {current}"
                for key in t.durable
                if not any(key in m for m in current)
            ]
    changes = sum(len(t.changes) for t in timelines)
    noise_total = sum(len(t.noise) for t in timelines)
    durable_total = sum(len(t.durable) for t in timelines)
    return {
        "users": users,
        "sessions": sum(len(t.sessions) for t in timelines),
        "changes": changes,
        "stale_in_top3": stale / changes,
        "new_value_current": fresh / changes,
        "duplicates": dupes,
        "noise_stored": noise_written / noise_total,
        "durable_kept": kept / durable_total,
        "add_p50_ms": percentile(latencies, 50),
        "misses": misses,
    }


def _from(candidate: str, message: str) -> bool:
    """The candidate was cut out of this message (the extractor keeps the user's words)."""
    a, b = "".join(candidate.lower().split()), "".join(message.lower().split())
    return len(a) >= 2 and (a in b or b in a)


ROWS = [
    ("stale value in top-3 of search", "stale_in_top3", "{:.0%}", "≤ 5%"),
    ("new value current", "new_value_current", "{:.0%}", ""),
    ("duplicate current memories", "duplicates", "{}", "0"),
    ("noise stored as facts", "noise_stored", "{:.0%}", "≤ 5%"),
    ("durable facts kept", "durable_kept", "{:.0%}", "≥ 95%"),
    ("add p50 per session (ms)", "add_p50_ms", "{:.0f}", "≤ 1.2× baseline"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--show", action="store_true", help="list every miss")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    figures = asyncio.run(run(args.users, args.seed))
    print(
        f"\nconsistency over {figures['users']} users, {figures['sessions']} sessions, "
        f"{figures['changes']} changed attributes (one session per add, offline)"
    )
    print(f"{'figure':34} {'now':>8} {'baseline':>9} {'target':>16}")
    for label, key, fmt, target in ROWS:
        base = BASELINE[key]
        print(
            f"{label:34} {fmt.format(figures[key]):>8} "
            f"{fmt.format(base) if base is not None else '-':>9} {target:>16}"
        )
    if args.show:
        print("\n".join(figures["misses"]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
