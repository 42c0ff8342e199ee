"""Raw turns in long conversations: indexed with the turn before them, ranked by who said them."""

from __future__ import annotations

import math

import pytest

from memhub import MemoryClient
from memhub.engine.conversation import in_context, named, prefer_speakers, with_previous
from memhub.store.server import QdrantServerStore
from memhub.testing import HashEmbedder


@pytest.fixture(params=["edge", "server"])
async def either(request, client, tmp_path):
    """The embedded default, and the Qdrant server backend (qdrant-client in memory)."""
    if request.param == "edge":
        yield client
        return
    store = QdrantServerStore(":memory:")
    async with MemoryClient(store=store, embed=HashEmbedder(), cwd=tmp_path) as server_client:
        yield server_client


def _cos(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


def test_a_turn_is_indexed_with_the_turn_before_it():
    assert with_previous(["Where do you live?", "In Lyon.", "Nice!"]) == [
        "Where do you live?",
        "Where do you live?\nIn Lyon.",
        "In Lyon.\nNice!",
    ]
    assert with_previous([]) == []


def test_a_turn_vector_leans_towards_the_previous_turn_and_stays_unit_length():
    question, answer = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    first, second = in_context([question, answer], weight=0.3)
    assert first == question
    assert 0 < _cos(second, question) < _cos(second, answer)
    assert math.isclose(sum(x * x for x in second), 1.0)


def test_named_speakers_are_whole_words_and_naming_everyone_prefers_no_one():
    assert named("What did Alice paint?", {"Alice", "Bob"}) == {"Alice"}
    assert named("What did Alicent paint?", {"Alice", "Bob"}) == set()
    assert named("What do Alice and Bob share?", {"Alice", "Bob"}) == set()
    assert named("小明上周去了哪里？", {"小明", "小红"}) == {"小明"}


def test_a_named_speakers_turn_climbs_and_nothing_is_lost():
    hits = [({"id": "1", "speaker": "Bob"}, 1.0), ({"id": "2", "speaker": "Alice"}, 0.8),
            ({"id": "3", "speaker": "Bob"}, 0.6), ({"id": "4"}, 0.5)]  # fmt: skip
    ranked = prefer_speakers("What did Alice paint?", hits, rrf_k=2)
    assert [p["id"] for p, _ in ranked] == ["2", "1", "3", "4"]
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert prefer_speakers("What did Carol paint?", hits, rrf_k=2) == hits


async def test_an_answer_is_found_by_the_words_of_the_question_it_answers(either):
    await either.add(messages=[
        {"role": "user", "content": "I also like cooking pasta on weekends."},
        {"role": "assistant", "content": "That sounds great, which sauce?"},
        {"role": "user", "content": "Tomato, mostly. What's the name of your dog?"},
        {"role": "assistant", "content": "He's called Rex."},
        {"role": "user", "content": "Cute! I went hiking in the Alps last summer."},
        {"role": "assistant", "content": "Lucky you, how were the views?"},
    ], user_id="u1")  # fmt: skip
    turns = (await either.search_conversation("dog name", user_id="u1", limit=2)).turns
    # the answer first, stored as said (without the question it is indexed with)
    assert [t.content for t in turns] == [
        "He's called Rex.",
        "Tomato, mostly. What's the name of your dog?",
    ]


async def test_a_question_about_a_person_prefers_what_that_person_said(either):
    await either.add(messages=[
        {"role": "user", "name": "Bob", "content": "Bob: I painted a portrait of Alice, and Alice loved it."},
        {"role": "assistant", "name": "Alice", "content": "Alice: Thanks! I finished a sunset painting."},
        {"role": "user", "name": "Bob", "content": "Bob: We should hike next week."},
    ], user_id="u1")  # fmt: skip
    turns = (await either.search_conversation("What did Alice paint?", user_id="u1", limit=3)).turns
    assert turns[0].content == "Alice: Thanks! I finished a sunset painting."
