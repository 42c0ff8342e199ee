"""Found by what it is, and across languages: short questions about a developer's memories.

    python bench/kinds_bench.py [--json OUT]

Two sets written for this bench, each a user's memories (one ``add`` each, through the
SDK, offline: bundled e5, BM25, heuristic extractor) and short questions, each with the
memory that answers it:

* **tools**: 28 memories that name tools (PostgreSQL, Fly.io, Kafka, pnpm, 阿里云, …),
  20 of them English and 8 Chinese, asked by what the tool is ("数据库选型", "which
  database do we use", "消息队列", "package manager"): 49 questions, 28 of them Chinese.
  Written before ``memhub.known_tools`` and used to build it.
* **bilingual**: 11 everyday memories, 6 English and 5 Chinese, asked in Chinese
  ("女儿在学什么乐器" for "My daughter is learning the violin"): 9 questions. Written
  after the language axis, never tuned on.

For each set: hit@1 and MRR over the first 10 results of ``search``, overall and by the
question's language, then the same with the two levers turned off in this process
(``--plain``: kinds not indexed, the query's language left in) for the side-by-side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

TOOLS = {
    "pg": "We upgraded to PostgreSQL 17 last week",
    "fastapi": "The backend is written with FastAPI",
    "react": "Our frontend is React 19 with Vite",
    "fly": "We deploy to Fly.io",
    "gha": "CI runs on GitHub Actions",
    "kafka": "Events go through Kafka between the services",
    "redis": "Sessions are cached in Redis",
    "sentry": "Errors are reported to Sentry",
    "grafana": "Dashboards live in Grafana, metrics come from Prometheus",
    "pnpm": "We switched the monorepo to pnpm workspaces",
    "pytest": "Tests are written with pytest and run in parallel with xdist",
    "tailwind": "Styling is done with Tailwind CSS",
    "k8s": "Production runs on a Kubernetes cluster on AWS",
    "mongo_zh": "日志存在 MongoDB 里",
    "go_zh": "支付服务是用 Go 写的",
    "vue_zh": "管理后台用的是 Vue 3",
    "aliyun_zh": "测试环境部署在阿里云上",
    "jenkins_zh": "我们的流水线跑在 Jenkins 上",
    "rabbit_zh": "订单通知走 RabbitMQ",
    "es_zh": "商品搜索用 Elasticsearch",
    "neovim": "I write code in Neovim",
    "prisma": "The ORM is Prisma",
    "auth0": "Login is handled by Auth0",
    "nginx_zh": "网关是 Nginx",
    "team": "我们的团队有五个人",
    "standup": "站会改到每周四了",
    "dana": "I'm Dana, I build a recipe app",
    "tabs": "I prefer tabs over spaces",
}
TOOLS_ASKED = [
    ("数据库选型", "pg"),
    ("which database do we use", "pg"),
    ("what's our database", "pg"),
    ("后端框架", "fastapi"),
    ("backend framework", "fastapi"),
    ("前端框架是什么", "react"),
    ("frontend framework", "react"),
    ("部署在哪里", "fly"),
    ("where do we host the app", "fly"),
    ("hosting provider", "fly"),
    ("CI 用的什么", "gha"),
    ("持续集成", "gha"),
    ("消息队列", "kafka"),
    ("message queue", "kafka"),
    ("缓存用什么", "redis"),
    ("cache", "redis"),
    ("错误监控", "sentry"),
    ("error tracking", "sentry"),
    ("监控", "grafana"),
    ("monitoring", "grafana"),
    ("包管理器", "pnpm"),
    ("package manager", "pnpm"),
    ("测试框架", "pytest"),
    ("test framework", "pytest"),
    ("CSS 框架", "tailwind"),
    ("容器编排", "k8s"),
    ("云服务商", "k8s"),
    ("日志存在哪个数据库", "mongo_zh"),
    ("log storage database", "mongo_zh"),
    ("支付服务用什么语言", "go_zh"),
    ("what language is the payment service in", "go_zh"),
    ("管理后台的前端框架", "vue_zh"),
    ("测试环境在哪个云", "aliyun_zh"),
    ("staging cloud provider", "aliyun_zh"),
    ("CI 流水线", "jenkins_zh"),
    ("订单通知用的消息队列", "rabbit_zh"),
    ("搜索引擎", "es_zh"),
    ("search engine for products", "es_zh"),
    ("编辑器", "neovim"),
    ("which editor", "neovim"),
    ("ORM 用哪个", "prisma"),
    ("身份认证", "auth0"),
    ("authentication provider", "auth0"),
    ("网关", "nginx_zh"),
    ("reverse proxy", "nginx_zh"),
    ("团队多少人", "team"),
    ("站会什么时候", "standup"),
    ("用户叫什么", "dana"),
    ("缩进偏好", "tabs"),
]
BILINGUAL = {
    "tabs": "I prefer tabs over spaces",
    "violin": "My daughter is learning the violin",
    "dog": "We have a golden retriever named Max",
    "flight": "I'm flying to Tokyo on March 3rd",
    "allergy": "I'm allergic to shellfish",
    "coffee": "I drink two cups of coffee every morning",
    "team": "我们的团队有五个人",
    "standup": "站会改到每周四了",
    "report": "周报每周五交",
    "office": "公司在望京",
    "lunch": "我中午一般吃食堂",
}
BILINGUAL_ASKED = [
    ("女儿在学什么乐器", "violin"),
    ("家里的狗叫什么", "dog"),
    ("什么时候去东京", "flight"),
    ("对什么过敏", "allergy"),
    ("每天喝几杯咖啡", "coffee"),
    ("缩进用什么", "tabs"),
    ("团队几个人", "team"),
    ("站会是哪天", "standup"),
    ("周报什么时候交", "report"),
]
SETS = {"tools": (TOOLS, TOOLS_ASKED), "bilingual": (BILINGUAL, BILINGUAL_ASKED)}


@contextmanager
def plain():
    """The two levers off in this process: no kind words in BM25, a query's language left in."""
    from memhub.embed import bm25, e5

    kinds, axis = bm25.kind_words, e5.without_language
    bm25.kind_words = lambda text: []
    e5.without_language = lambda text, vector: vector
    try:
        yield
    finally:
        bm25.kind_words, e5.without_language = kinds, axis


def _chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


async def run_set(memories: dict[str, str], asked: list[tuple[str, str]]) -> dict:
    from memhub import MemoryClient

    with tempfile.TemporaryDirectory(prefix="memhub-kinds-") as tmp:
        async with MemoryClient(storage_dir=Path(tmp) / "s", cwd=Path(tmp)) as client:
            ids: dict[str, str] = {}
            for key, text in memories.items():
                res = await client.add(
                    messages=[{"role": "user", "content": text}], user_id="u", session_id=key
                )
                ids.update((d.memory_id, key) for d in res.decisions if d.memory_id)
            rows = []
            for question, wanted in asked:
                res = await client.search(question, user_id="u", limit=10)
                found = sorted(res.memories.all(), key=lambda m: -(m.score or 0.0))
                ranked = [ids.get(m.id) for m in found]
                rank = ranked.index(wanted) + 1 if wanted in ranked else None
                rows.append({"question": question, "wanted": wanted, "rank": rank})
    stored = len(set(ids.values()))
    return {"stored": stored, "memories": len(memories), "rows": rows, **_scores(rows)}


def _scores(rows: list[dict]) -> dict:
    out = {}
    for name, part in (
        ("all", rows),
        ("zh", [r for r in rows if _chinese(r["question"])]),
        ("en", [r for r in rows if not _chinese(r["question"])]),
    ):
        if part:
            out[name] = {
                "n": len(part),
                "hit@1": sum(r["rank"] == 1 for r in part) / len(part),
                "mrr": sum(1 / r["rank"] for r in part if r["rank"]) / len(part),
            }
    return out


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    results = {}
    for name, (memories, asked) in SETS.items():
        with plain():
            before = await run_set(memories, asked)
        after = await run_set(memories, asked)
        results[name] = {"plain": before, "now": after}
        print(f"\n{name}: {after['memories']} memories, {len(asked)} questions")
        print(f"  stored: plain {before['stored']}, now {after['stored']}")
        for group in ("all", "zh", "en"):
            if group in after:
                b, a = before[group], after[group]
                print(
                    f"  {group:<4} n={a['n']:<3} hit@1 {b['hit@1']:.3f} -> {a['hit@1']:.3f}   "
                    f"MRR {b['mrr']:.3f} -> {a['mrr']:.3f}"
                    + (f" ({a['mrr'] / b['mrr']:.2f}x)" if b["mrr"] else "")
                )
        for r in after["rows"]:
            if r["rank"] != 1:
                print(f"    rank {r['rank'] or '>10'}: {r['question']!r} wants {r['wanted']}")
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
