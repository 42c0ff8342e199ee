"""``memhub.retrieval.query.from_messages``: a search query from a conversation."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from memhub import InvalidInputError
from memhub.retrieval.query import approx_tokens, from_messages

CHAT = [
    {"role": "system", "content": "You are a helpful assistant. SYSTEM-PROMPT"},
    {"role": "user", "content": "我今天数学考试拿了满分！"},
    {"role": "assistant", "content": "太棒了！你一定很努力吧？"},
    {"role": "tool", "content": "TOOL-OUTPUT"},
    {
        "role": "user",
        "content": [{"type": "text", "text": "你觉得我应该怎么庆祝？"}, {"type": "image_url"}],
    },
]


def test_user_turns_oldest_first_without_labels_system_or_tools():
    assert from_messages(CHAT) == "我今天数学考试拿了满分！\n你觉得我应该怎么庆祝？"


def test_roles_choose_whose_turns_count():
    assert from_messages(CHAT, roles=("user", "assistant")) == (
        "我今天数学考试拿了满分！\n太棒了！你一定很努力吧？\n你觉得我应该怎么庆祝？"
    )


def test_langchain_style_objects_and_plain_strings():
    msgs = [
        SimpleNamespace(type="human", content="I moved to Berlin"),
        SimpleNamespace(type="ai", content="Nice!"),
        "and I started a new job",
    ]
    assert from_messages(msgs) == "I moved to Berlin\nand I started a new job"


def test_falls_back_to_the_last_turn_with_text_when_the_roles_said_nothing():
    msgs = [
        {"role": "user", "content": "  "},
        {"role": "assistant", "content": "Which database do you use?"},
    ]
    assert from_messages(msgs) == "Which database do you use?"


def test_budget_drops_the_oldest_turns_first():
    msgs = [{"role": "user", "content": f"turn {i} " + "word " * 40} for i in range(30)]
    query = from_messages(msgs, max_tokens=200)
    assert approx_tokens(query) <= 200
    assert query.endswith(msgs[-1]["content"].strip()) and "turn 0 " not in query
    long_zh = "很长的一句话" * 200
    assert approx_tokens(from_messages([long_zh], max_tokens=100)) <= 100


def test_no_text_is_a_clear_error():
    with pytest.raises(InvalidInputError):
        from_messages(
            [{"role": "system", "content": "only a system prompt"}, {"role": "user", "content": ""}]
        )
    with pytest.raises(InvalidInputError):
        from_messages(CHAT, max_tokens=0)


def test_approx_tokens_counts_cjk_per_character():
    assert approx_tokens("数据库") == 3
    assert approx_tokens("abcdefgh") == 2
