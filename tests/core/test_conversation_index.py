"""Raw turns in long conversations: ranked by who said them."""

from __future__ import annotations

import pytest

from memhub import MemoryClient
from memhub.engine.conversation import named, prefer_speakers
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


def test_named_speakers_are_whole_words_and_naming_everyone_prefers_no_one():
    assert named("What did Alice paint?", {"Alice", "Bob"}) == {"Alice"}
    assert named("What did Alicent paint?", {"Alice", "Bob"}) == set()
    assert named("What do Alice and Bob share?", {"Alice", "Bob"}) == set()
    assert named("小明上周去了哪里？", {"小明", "小红"}) == {"小明"}


def test_a_named_speakers_turn_climbs_and_nothing_is_lost():
    hits = [
        ({"id": "1", "speaker": "Bob"}, 1.0),
        ({"id": "2", "speaker": "Alice"}, 0.8),
        ({"id": "3", "speaker": "Bob"}, 0.6),
        ({"id": "4"}, 0.5),
    ]
    ranked = prefer_speakers("What did Alice paint?", hits, rrf_k=2)
    assert [p["id"] for p, _ in ranked] == ["2", "1", "3", "4"]
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert prefer_speakers("What did Carol paint?", hits, rrf_k=2) == hits


async def test_a_question_about_a_person_prefers_what_that_person_said(either):
    await either.add(
        messages=[
            {
                "role": "user",
                "name": "Bob",
                "content": "Bob: I painted a portrait of Alice, and Alice loved it.",
            },
            {
                "role": "assistant",
                "name": "Alice",
                "content": "Alice: Thanks! I finished a sunset painting.",
            },
            {"role": "user", "name": "Bob", "content": "Bob: We should hike next week."},
        ],
        user_id="u1",
    )
    turns = (await either.search_conversation("What did Alice paint?", user_id="u1", limit=3)).turns
    assert turns[0].content == "Alice: Thanks! I finished a sunset painting."
