"""Well-known software tools, and what kind of thing each one is, in English and Chinese.

A developer says "we upgraded to PostgreSQL 17" and asks a week later "数据库选型" or
"which database do we use": the memory names the tool, the question names its kind, and
neither the small embedder nor BM25 knows that PostgreSQL is a database. This table
does. It serves two readers:

* BM25 (:mod:`memhub.embed.bm25`) indexes a text that names a tool with its kind's
  words as well, in both languages, so a short question by kind finds it;
* the heuristic extractor counts a tool's name as something specific: "Tests are
  written with pytest" and "测试环境在阿里云上" are facts, not talk.

Names that are also common words (Go, Rust, Swift, Spring, Express, Cursor, Linear, …)
count only as written with a capital after a word ("we use Go", never "Go for it!"), or
beside Chinese text ("我们用 go 写后端"); the others in any case. The table names kinds
of tools, never a project's own words.

Example:
    >>> kind_words("We upgraded to PostgreSQL 17")
    ['database', '数据库']
    >>> names_a_tool("Tests are written with pytest")
    True
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memhub._cjk import HAN

__all__ = ["KINDS", "kind_words", "names_a_tool"]

# kind -> (its words in English, in Chinese, the tools' names: "|"-separated, a name that
# is also a common word marked with a leading "^", matched as written or beside Chinese)
KINDS: dict[str, tuple[str, str, str]] = {
    "database": (
        "database",
        "数据库",
        "postgresql|postgres|mysql|mariadb|sqlite|mongodb|^Cassandra|dynamodb|tidb|oceanbase|"
        "clickhouse|cockroachdb|neo4j|supabase|firestore|couchdb|duckdb|timescaledb|influxdb|"
        "sql server|mssql|scylladb|^Oracle",
    ),
    "vector database": (
        "vector database",
        "向量数据库",
        "qdrant|milvus|^Pinecone|weaviate|pgvector|faiss|^Chroma",
    ),
    "cache": ("cache", "缓存", "redis|memcached|valkey"),
    "search engine": (
        "search engine",
        "搜索引擎",
        "elasticsearch|opensearch|solr|meilisearch|typesense",
    ),
    "message queue": (
        "message queue broker",
        "消息队列",
        "kafka|rabbitmq|rocketmq|activemq|pulsar|nats|sqs|mqtt",
    ),
    "task queue": ("task queue background jobs", "任务队列", "^Celery|sidekiq|bullmq|rq"),
    "language": (
        "programming language",
        "编程语言 语言",
        "python|golang|typescript|javascript|kotlin|^Java|c\\+\\+|c#|^Ruby|php|scala|^Elixir|"
        "haskell|^Dart|lua|^Go|^Rust|^Swift|^Julia",
    ),
    "backend framework": (
        "backend framework web framework",
        "后端框架 框架",
        "fastapi|django|spring boot|nestjs|laravel|actix|axum|asp\\.net|^Gin|^Flask|^Spring|"
        "^Express|^Rails",
    ),
    "frontend framework": (
        "frontend framework ui",
        "前端框架 框架",
        "^React|vue|^Angular|svelte|next\\.js|nextjs|nuxt|solidjs|jquery",
    ),
    "css": ("css styling", "样式 css框架", "^Tailwind|tailwindcss|^Bootstrap|^Sass"),
    "mobile": (
        "mobile app framework",
        "移动端 框架",
        "^Flutter|react native|swiftui|jetpack compose",
    ),
    "build tool": (
        "build tool bundler",
        "构建工具 打包",
        "vite|webpack|esbuild|^Rollup|turbopack|gradle|^Maven|bazel|cmake",
    ),
    "package manager": (
        "package manager",
        "包管理器 包管理",
        "npm|pnpm|^Yarn|pip|^Poetry|conda|^Cargo|^Homebrew|^uv",
    ),
    "test framework": (
        "test framework testing",
        "测试框架 测试",
        "pytest|^Jest|vitest|^Mocha|junit|^Cypress|^Playwright|^Selenium|unittest",
    ),
    "ci": (
        "ci continuous integration pipeline",
        "持续集成 流水线",
        "github actions|gitlab ci|jenkins|circleci|travis ci|buildkite|argo cd|argocd",
    ),
    "containers": (
        "container orchestration cluster",
        "容器 容器编排 集群",
        "docker|kubernetes|k8s|podman|^Helm|docker compose|openshift",
    ),
    "cloud": (
        "cloud provider",
        "云 云服务 云服务商 云平台",
        "aws|gcp|google cloud|^Azure|阿里云|aliyun|alibaba cloud|腾讯云|华为云|cloudflare|"
        "digitalocean|hetzner|linode",
    ),
    "hosting": (
        "hosting deploy deployment platform",
        "部署 托管 平台",
        "fly\\.io|heroku|vercel|netlify|^Render|^Railway",
    ),
    "monitoring": (
        "monitoring metrics observability",
        "监控 指标",
        "^Prometheus|grafana|datadog|new relic|zabbix|opentelemetry",
    ),
    "error tracking": (
        "error tracking errors monitoring",
        "错误监控 报错 异常",
        "^Sentry|bugsnag|rollbar",
    ),
    "logging": ("logging logs", "日志", "^Loki|splunk|logstash|kibana|fluentd"),
    "gateway": (
        "gateway reverse proxy load balancer",
        "网关 反向代理 负载均衡",
        "nginx|kong|^Envoy|traefik|haproxy|^Caddy",
    ),
    "auth": (
        "authentication login auth",
        "身份认证 认证 登录",
        "auth0|keycloak|okta|cognito|firebase auth|^Clerk",
    ),
    "orm": (
        "orm object relational mapper",
        "ORM框架",
        "prisma|sqlalchemy|^Hibernate|typeorm|sequelize|gorm|^Drizzle",
    ),
    "editor": (
        "editor ide",
        "编辑器 开发工具",
        "vim|neovim|emacs|vscode|vs code|intellij|pycharm|webstorm|goland|sublime text|jetbrains|"
        "^Cursor|^Zed",
    ),
    "os": (
        "operating system os",
        "操作系统 系统",
        "ubuntu|debian|centos|^Fedora|macos|linux|freebsd|^Windows|^Arch",
    ),
    "version control": (
        "version control code hosting repository",
        "版本控制 代码托管 仓库",
        "git|github|gitlab|bitbucket|gitea",
    ),
    "api": ("api protocol", "接口 协议", "graphql|grpc|openapi|websocket"),
    "llm": (
        "llm language model ai model",
        "大模型 模型",
        "openai|gpt-4o|gpt-4|gpt-5|gpt|anthropic|^Gemini|deepseek|qwen|通义千问|文心一言|^Claude|"
        "^Llama",
    ),
    "project tracker": (
        "project management issue tracker",
        "项目管理 任务管理",
        "jira|trello|^Asana|^Confluence|^Linear|^Notion",
    ),
    "chat": (
        "team chat messaging",
        "沟通工具 即时通讯",
        "^Slack|飞书|钉钉|企业微信|^Lark|^Teams|^Discord",
    ),
}

# a name is a whole word: no Latin letter, digit or name character on either side (Chinese
# text around it is fine: "测试环境在阿里云上", "我们用Go写")
_EDGE_BEFORE = r"(?<![A-Za-z0-9_.+#-])"
_EDGE_AFTER = r"(?![A-Za-z0-9_+#]|\.[A-Za-z0-9])"


def _pattern(names: str) -> re.Pattern[str]:
    """One pattern for a kind's names: the plain ones in any case, the marked ones
    (``^Go``) as written after a word, or lower-case beside a Chinese character."""
    plain = [n for n in names.split("|") if not n.startswith("^")]
    marked = [n[1:] for n in names.split("|") if n.startswith("^")]
    parts = [f"(?i:{'|'.join(sorted(plain, key=len, reverse=True))})"] if plain else []
    for name in marked:
        lower = name.lower()
        parts.append(f"(?<=[\\w,] ){name}")  # mid-sentence: "Go for it!" is no language
        for form in (name, lower):
            parts.append(f"(?<=[{HAN}]){form}|(?<=[{HAN}] ){form}|{form}(?= ?[{HAN}])")
    return re.compile(_EDGE_BEFORE + "(?:" + "|".join(parts) + ")" + _EDGE_AFTER)


@dataclass(frozen=True)
class _Kind:
    """A kind's words, its names' pattern, and what a text must hold for that pattern to
    be worth running: one of its names' first Latin words, or one of its Chinese names."""

    words_en: list[str]
    words_zh: list[str]
    pattern: re.Pattern[str]
    heads: frozenset[str]
    chinese: list[str]

    @classmethod
    def of(cls, words_en: str, words_zh: str, names: str) -> _Kind:
        spelled = [n.lstrip("^").replace("\\", "") for n in names.split("|")]
        heads = frozenset(m.group() for n in spelled if (m := _HEAD.match(n.lower())))
        chinese = [n for n in spelled if not _HEAD.match(n.lower())]
        return cls(words_en.split(), words_zh.split(), _pattern(names), heads, chinese)

    def named_in(self, text: str, words: set[str]) -> bool:
        if not (self.heads & words or any(n in text for n in self.chinese)):
            return False
        return bool(self.pattern.search(text))


_HEAD = re.compile(r"[a-z0-9]+")


@functools.cache
def _kinds() -> list[_Kind]:
    """The kinds with their compiled patterns, made on first use: compiling them takes
    ~1 s on a busy 2-core machine, which ``import memhub`` must not pay."""
    return [_Kind.of(*kind) for kind in KINDS.values()]


def _named(text: str) -> list[_Kind]:
    """The kinds whose tools ``text`` names. A regex of every name costs ~8 µs a character
    on Chinese text, so each kind's pattern runs only on a text that holds one of its
    names' words (one pass to split the text into words): a long document stays cheap."""
    words = set(_HEAD.findall(text.lower()))
    return [kind for kind in _kinds() if kind.named_in(text, words)]


def names_a_tool(text: str) -> bool:
    """Does ``text`` name a well-known tool?"""
    return bool(_named(text))


def kind_words(text: str) -> list[str]:
    """The words of the kinds of the tools ``text`` names, English then Chinese, each once."""
    en: dict[str, None] = {}
    zh: dict[str, None] = {}
    for kind in _named(text):
        en.update(dict.fromkeys(kind.words_en))
        zh.update(dict.fromkeys(kind.words_zh))
    return [*en, *zh]
