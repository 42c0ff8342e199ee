"""A memory that names a tool is found by a short question about the tool's kind
(``memhub.known_tools``), in Chinese and English, and a statement naming a tool is kept.

End to end through the SDK with the bundled e5: a developer's memories, written the way
developers write them (English tool names in Chinese sentences too), then asked about
a week later by what the thing is, not by its name.
"""

from __future__ import annotations

import pytest
from asked import missed

from memhub import MemoryClient
from memhub.embed.bm25 import Bm25Encoder
from memhub.known_tools import kind_words, names_a_tool

MEMORIES = {
    "pg": "We upgraded to PostgreSQL 17 last week",
    "fastapi": "The backend is written with FastAPI",
    "fly": "We deploy to Fly.io",
    "kafka": "Events go through Kafka between the services",
    "pnpm": "We switched the monorepo to pnpm workspaces",
    "sentry": "Errors are reported to Sentry",
    "tests": "Tests are written with pytest",
    "team": "我们的团队有五个人",
    "standup": "站会改到每周四了",
    "go": "支付服务是用 Go 写的",
    "cloud": "测试环境在阿里云上",
    "tabs": "I prefer tabs over spaces",
}

# (question, the memory a user wants among the first three)
ASKED = [
    ("数据库选型", "pg"),
    ("which database do we use", "pg"),
    ("后端框架", "fastapi"),
    ("where do we host the app", "fly"),
    ("消息队列", "kafka"),
    ("package manager", "pnpm"),
    ("包管理器", "pnpm"),
    ("错误监控", "sentry"),
    ("测试框架", "tests"),
    ("what language is the payment service in", "go"),
    ("云服务商", "cloud"),
]


async def test_a_question_by_kind_finds_the_memory_that_names_the_tool(e5, tmp_path):
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        assert await missed(client, MEMORIES, [(q, key, 3) for q, key in ASKED]) == []


@pytest.mark.parametrize("text", ["Tests are written with pytest", "测试环境在阿里云上"])
async def test_a_statement_naming_a_tool_is_a_fact_not_talk(e5, tmp_path, text):
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(messages=[{"role": "user", "content": text}], user_id="u")
        assert [m.content for m in await client.list(user_id="u")] == [text]


def test_the_kinds_of_the_tools_a_text_names_in_both_languages():
    assert kind_words("We upgraded to PostgreSQL 17") == ["database", "数据库"]
    assert kind_words("日志存在 MongoDB 里") == ["database", "数据库"]
    assert "云服务商" in kind_words("测试环境在阿里云上")
    assert "language" in kind_words("我们用Go写") and "language" in kind_words("we use Go")
    assert set(kind_words("Our frontend is React 19 with Vite")) >= {"frontend", "bundler"}


@pytest.mark.parametrize(
    "text",
    [
        "Go for it, Jon!",
        "I react badly to stress",
        "I like gin and tonic",
        "less is more",
        "the rust on my bike",
        "the pipeline broke",
        "a cup of mocha",
        "I prefer tabs over spaces",
    ],
)
def test_a_common_word_that_is_also_a_tool_name_names_no_tool(text):
    assert not names_a_tool(text)
    assert kind_words(text) == []


def _dot(a, b) -> float:
    weights = dict(zip(b.indices, b.values, strict=True))
    return sum(v * weights.get(i, 0.0) for i, v in zip(a.indices, a.values, strict=True))


def test_bm25_indexes_a_tool_with_its_kind_and_the_text_keeps_its_own_weights():
    bm25 = Bm25Encoder()
    doc = bm25.document("We upgraded to PostgreSQL 17 last week")
    assert _dot(bm25.query("数据库选型"), doc) > 0
    assert _dot(bm25.query("which databases"), doc) > 0
    # a text without a tool is indexed as before, and a word a text says itself keeps the
    # weight it has there
    plain = "We upgraded the garden shed last week"
    assert _dot(bm25.query("database"), bm25.document(plain)) == 0
    said = bm25.document("Our database is PostgreSQL, the database of choice")
    alone = bm25._model.embed_document("Our database is PostgreSQL, the database of choice")
    base = dict(zip(alone.indices, alone.values, strict=True))
    assert {i: v for i, v in zip(said.indices, said.values, strict=True) if i in base} == base
