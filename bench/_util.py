"""Shared helpers for the engine benchmark: deterministic data, timing statistics, memory.

Nothing here touches the network or the home directory. Every generator takes a
seed, so two runs (and the two engines) see exactly the same data.
"""

from __future__ import annotations

import math
import random
import resource
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
from ulid import ULID

from memhub.engine.access import ACCESS_KEY, access_keys
from memhub.ids import to_point_id
from memhub.store.base import StoredPoint
from memhub.text import content_hash, overlap

DIM = 384
USERS = 50
TENANT = "local"
APP_ID = "default"  # the client's default app_id: recall filters on it
REAL_USER = "u000"  # the user the real facts belong to and recall runs as

# -- word lists for synthetic pseudo-sentences -------------------------------------

EN_WORDS = [
    "project",
    "database",
    "server",
    "deploy",
    "release",
    "meeting",
    "deadline",
    "customer",
    "invoice",
    "budget",
    "team",
    "design",
    "review",
    "cache",
    "queue",
    "backend",
    "frontend",
    "mobile",
    "api",
    "token",
    "schema",
    "index",
    "migration",
    "backup",
    "latency",
    "memory",
    "cluster",
    "region",
    "config",
    "feature",
    "branch",
    "commit",
    "test",
    "coverage",
    "bug",
    "report",
    "dashboard",
    "metric",
    "alert",
    "incident",
    "oncall",
    "rotation",
    "holiday",
    "travel",
    "flight",
    "hotel",
    "coffee",
    "lunch",
    "dinner",
    "birthday",
    "gift",
    "music",
    "movie",
    "book",
    "running",
    "yoga",
    "doctor",
    "dentist",
    "appointment",
    "contract",
    "vendor",
    "pricing",
    "plan",
    "quarter",
    "goal",
    "roadmap",
    "launch",
    "marketing",
    "email",
    "calendar",
    "weekly",
    "monthly",
    "urgent",
    "prefer",
    "likes",
    "hates",
    "uses",
    "wants",
    "needs",
    "moved",
    "changed",
    "agreed",
    "decided",
    "postponed",
    "cancelled",
    "approved",
    "rejected",
    "london",
    "berlin",
    "tokyo",
    "shanghai",
    "beijing",
    "paris",
    "python",
    "rust",
    "golang",
    "java",
    "postgres",
    "redis",
    "kafka",
    "docker",
    "kubernetes",
]

ZH_WORDS = [
    "项目",
    "数据库",
    "服务器",
    "部署",
    "发布",
    "会议",
    "截止日期",
    "客户",
    "发票",
    "预算",
    "团队",
    "设计",
    "评审",
    "缓存",
    "队列",
    "后端",
    "前端",
    "移动端",
    "接口",
    "令牌",
    "索引",
    "迁移",
    "备份",
    "延迟",
    "内存",
    "集群",
    "区域",
    "配置",
    "功能",
    "分支",
    "提交",
    "测试",
    "覆盖率",
    "缺陷",
    "报告",
    "仪表盘",
    "指标",
    "告警",
    "故障",
    "值班",
    "假期",
    "出差",
    "航班",
    "酒店",
    "咖啡",
    "午饭",
    "晚饭",
    "生日",
    "礼物",
    "音乐",
    "电影",
    "书",
    "跑步",
    "瑜伽",
    "医生",
    "牙医",
    "预约",
    "合同",
    "供应商",
    "价格",
    "计划",
    "季度",
    "目标",
    "路线图",
    "上线",
    "市场",
    "邮件",
    "日历",
    "每周",
    "每月",
    "紧急",
    "喜欢",
    "讨厌",
    "使用",
    "需要",
    "改成",
    "同意",
    "决定",
    "推迟",
    "取消",
    "批准",
    "拒绝",
    "北京",
    "上海",
    "深圳",
    "杭州",
    "东京",
    "伦敦",
    "明天",
    "下周",
    "周一",
    "周五",
    "上午",
    "下午",
]

LAYERS = (("fact", 70), ("profile", 10), ("lesson", 8), ("procedure", 5), ("handoff", 7))
STATUSES = (("active", 90), ("superseded", 7), ("negated", 3))
EXPOSURES = (("visible", 95), ("quarantined", 3), ("sealed", 2))
APPS = ((APP_ID, 80), ("chat", 12), ("coder", 8))


def _pick(rng: random.Random, weighted: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([w for w, _ in weighted], weights=[p for _, p in weighted])[0]


def sentence(rng: random.Random, lo: int = 6, hi: int = 14) -> str:
    """A pseudo-sentence, Chinese or English with equal odds."""
    if rng.random() < 0.5:
        return (
            "".join(
                rng.choice(ZH_WORDS) for _ in range(rng.randint(max(3, lo // 2), max(4, hi // 2)))
            )
            + "。"
        )
    words = [rng.choice(EN_WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def short_query(rng: random.Random) -> str:
    """A 2-4 word query over the same vocabulary (so BM25 has candidates)."""
    if rng.random() < 0.5:
        return "".join(rng.choice(ZH_WORDS) for _ in range(rng.randint(2, 3)))
    return " ".join(rng.choice(EN_WORDS) for _ in range(rng.randint(2, 4)))


def unit_vectors(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def synthetic_batch(start: int, count: int, bm25, seed: int = 7) -> list[StoredPoint]:
    """Points ``start .. start+count`` of the synthetic corpus, shaped like real memories.

    Each batch has its own seed, so the corpus is identical whatever the batch size
    and no more than one batch of vectors is ever held in memory.
    """
    rng = random.Random(seed * 1_000_003 + start)
    vectors = unit_vectors(np.random.default_rng(seed * 1_000_003 + start), count)
    points = []
    for i in range(count):
        idx = start + i
        text = sentence(rng)
        created = _EPOCH + timedelta(minutes=idx * 7 + rng.randint(0, 6))
        atom_id = str(ULID.from_bytes(rng.randbytes(16)))
        status = _pick(rng, STATUSES)
        payload = {
            "id": atom_id,
            "content": text,
            "layer": _pick(rng, LAYERS),
            "epistemic": rng.choice(("actual", "actual", "actual", "possible", "necessary")),
            "polarity": "positive",
            "status": status,
            "exposure": _pick(rng, EXPOSURES),
            "source": "agent",
            "created_at": _iso(created),
            "updated_at": _iso(created),
            "rev": 1,
            "version": 1,
            "chain_root": atom_id,
            "content_hash": content_hash(text),
            "metadata": {},
            "tenant": TENANT,
            "user_id": f"u{rng.randrange(USERS):03d}",
            "app_id": _pick(rng, APPS),
        }
        payload[ACCESS_KEY] = access_keys(payload)  # as Engine.insert stores it
        points.append(
            StoredPoint(to_point_id(atom_id), payload, vectors[i].tolist(), bm25.document(text))
        )
    return points


def batches(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(size, n - start)


# -- real facts and real queries --------------------------------------------------

_PEOPLE_EN = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy")
_PEOPLE_ZH = ("小王", "老李", "张伟", "刘芳", "陈静", "杨洋", "赵磊", "黄敏", "周杰", "吴婷")
_PROJECTS = (
    "Atlas",
    "Beacon",
    "Comet",
    "Delta",
    "Ember",
    "Falcon",
    "Gemini",
    "Harbor",
    "Iris",
    "Juno",
)
_TECH = (
    "PostgreSQL",
    "Redis",
    "Kafka",
    "ClickHouse",
    "SQLite",
    "MongoDB",
    "RabbitMQ",
    "Elasticsearch",
    "DuckDB",
    "MySQL",
    "Nginx",
    "Caddy",
)
_PURPOSE_EN = (
    "caching",
    "analytics",
    "the job queue",
    "full-text search",
    "session storage",
    "billing",
    "audit logs",
    "the main database",
)
_PURPOSE_ZH = (
    "缓存",
    "数据分析",
    "任务队列",
    "全文检索",
    "会话存储",
    "计费",
    "审计日志",
    "主数据库",
)
_FOOD_EN = ("peanuts", "shellfish", "gluten", "milk", "eggs", "soy", "sesame")
_FOOD_ZH = ("花生", "海鲜", "麸质", "牛奶", "鸡蛋", "大豆", "芝麻")
_CITY_EN = ("Berlin", "Tokyo", "Shanghai", "London", "Austin", "Singapore", "Paris")
_CITY_ZH = ("北京", "上海", "深圳", "杭州", "成都", "东京", "新加坡")
_WEEKDAY_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_WEEKDAY_ZH = ("周一", "周二", "周三", "周四", "周五")

_FACTS = (
    lambda r: (
        f"{r.choice(_PEOPLE_EN)} prefers {r.choice(_TECH)} for {r.choice(_PURPOSE_EN)} in "
        f"the {r.choice(_PROJECTS)} project"
    ),
    lambda r: (
        f"The {r.choice(_PROJECTS)} service is deployed in {r.choice(_CITY_EN)} and "
        f"uses {r.choice(_TECH)} {r.randint(2, 17)}"
    ),
    lambda r: (
        f"{r.choice(_PEOPLE_EN)} is allergic to {r.choice(_FOOD_EN)}; book restaurants accordingly"
    ),
    lambda r: (
        f"The {r.choice(_PROJECTS)} release deadline "
        f"is {r.randint(1, 28)} {r.choice(('March', 'June', 'September', 'November'))}"
    ),
    lambda r: (
        f"The {r.choice(_PROJECTS)} team meets every {r.choice(_WEEKDAY_EN)} "
        f"at {r.randint(9, 17)}:00"
    ),
    lambda r: (
        f"We replaced {r.choice(_TECH)} with {r.choice(_TECH)} for {r.choice(_PURPOSE_EN)} after "
        f"the outage in week {r.randint(1, 52)}"
    ),
    lambda r: (
        f"{r.choice(_PEOPLE_ZH)}喜欢用{r.choice(_TECH)}做{r.choice(_PURPOSE_ZH)}，{r.choice(_PROJECTS)}项目也是这样"
    ),
    lambda r: (
        f"{r.choice(_PROJECTS)}服务部署在{r.choice(_CITY_ZH)}，"
        f"使用{r.choice(_TECH)} {r.randint(2, 17)}"
    ),
    lambda r: f"{r.choice(_PEOPLE_ZH)}对{r.choice(_FOOD_ZH)}过敏，订餐时要注意",
    lambda r: f"{r.choice(_PROJECTS)}项目的上线截止日期是{r.randint(1, 12)}月{r.randint(1, 28)}日",
    lambda r: f"{r.choice(_PROJECTS)}团队每{r.choice(_WEEKDAY_ZH)}{r.randint(9, 17)}点开周会",
    lambda r: (
        f"第{r.randint(1, 52)}周故障之后，"
        f"我们用{r.choice(_TECH)}替换了{r.choice(_TECH)}做{r.choice(_PURPOSE_ZH)}"
    ),
)

_QUERIES = (
    lambda r: f"what does {r.choice(_PEOPLE_EN)} use for {r.choice(_PURPOSE_EN)}",
    lambda r: f"where is {r.choice(_PROJECTS)} deployed",
    lambda r: f"{r.choice(_PEOPLE_EN)} food allergy",
    lambda r: f"{r.choice(_PROJECTS)} deadline",
    lambda r: f"when does the {r.choice(_PROJECTS)} team meet",
    lambda r: (
        f"which {r.choice(('database', 'queue', 'cache', 'search engine'))} "
        f"for {r.choice(_PURPOSE_EN)}"
    ),
    lambda r: f"why did we drop {r.choice(_TECH)}",
    lambda r: f"{r.choice(_PEOPLE_ZH)}用什么做{r.choice(_PURPOSE_ZH)}",
    lambda r: f"{r.choice(_PROJECTS)}部署在哪里",
    lambda r: f"{r.choice(_PEOPLE_ZH)}过敏吗",
    lambda r: f"{r.choice(_PROJECTS)}什么时候上线",
    lambda r: f"{r.choice(_PROJECTS)}周会时间",
    lambda r: f"{r.choice(_PURPOSE_ZH)}用的什么{r.choice(('数据库', '中间件', '组件'))}",
    lambda r: f"为什么换掉{r.choice(_TECH)}",
)


def real_facts(n: int, seed: int = 11) -> list[str]:
    """``n`` distinct, realistic zh/en facts, none a near-duplicate of another."""
    rng = random.Random(seed)
    out: list[str] = []
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > n * 200:
            raise RuntimeError("cannot generate enough distinct facts")
        fact = rng.choice(_FACTS)(rng)
        if all(overlap(fact, other) < 0.7 for other in out):
            out.append(fact)
    return out


def real_queries(n: int, seed: int = 13) -> list[str]:
    """``n`` distinct short zh/en queries."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    tries = 0
    while len(seen) < n:
        tries += 1
        if tries > n * 200:
            raise RuntimeError("cannot generate enough distinct queries")
        seen[_QUERIES[tries % len(_QUERIES)](rng)] = None
    return list(seen)


# -- timing and memory ------------------------------------------------------------


def percentile(values: list[float], p: float) -> float:
    """Linear-interpolated percentile (p in 0..100); NaN for no values."""
    if not values:
        return math.nan
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(ms: list[float]) -> dict:
    return {
        "n": len(ms),
        "p50": percentile(ms, 50),
        "p95": percentile(ms, 95),
        "mean": sum(ms) / len(ms) if ms else math.nan,
    }


class Stopwatch:
    """``with sw: ...`` appends the elapsed milliseconds to ``sw.ms``."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self._t = 0

    def __enter__(self) -> Stopwatch:
        self._t = time.perf_counter_ns()
        return self

    def __exit__(self, *exc: object) -> None:
        self.ms.append((time.perf_counter_ns() - self._t) / 1e6)


def cpu_s() -> float:
    """User + system CPU seconds of this process (every thread): unlike wall time, not
    inflated by other processes competing for the cores."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def rss_mb() -> dict:
    """Peak RSS (getrusage) and current RSS split into anonymous and file-backed, in MB.

    File-backed RSS is mmap'ed store files and shared libraries: the kernel can drop
    those pages under memory pressure, unlike anonymous memory.
    """
    out = {"max_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # KB on Linux
    fields = {"VmRSS": "current_mb", "RssAnon": "anon_mb", "RssFile": "file_mb", "VmHWM": "hwm_mb"}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key = line.split(":", 1)[0]
                if key in fields:
                    out[fields[key]] = int(line.split()[1]) / 1024
    except OSError:
        pass
    out.setdefault("current_mb", math.nan)
    return out
