"""A turn on the topic of the best matches climbs, without the question's words
(pseudo-relevance feedback of ``search_conversation``, memhub.engine.conversation)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import pytest

from memhub import MemoryClient
from memhub.engine.conversation import with_feedback
from memhub.store.server import QdrantServerStore

# A word's meaning on three axes (sailing, the boat called Albatross, gardening): what a
# real embedder learns, written out so the test says what is near what.
MEANING = {
    "sail": (1.0, 0.0, 0.0),
    "sailed": (1.0, 0.0, 0.0),
    "sailing": (1.0, 0.0, 0.0),
    "albatross": (0.0, 1.0, 0.0),
    "rowing": (0.1, 0.0, 0.0),
    "garden": (0.0, 0.0, 1.0),
}


class MeaningEmbedder:
    name = "test/meaning"
    dim = 3
    similarity_floor = 0.0

    def vector(self, text: str) -> list[float]:
        v = [0.0, 0.0, 0.0]
        for word in re.findall(r"\w+", text.lower()):
            for i, x in enumerate(MEANING.get(word, (0.0, 0.0, 0.0))):
                v[i] += x
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / norm for x in v]

    async def embed_query(self, text: str) -> list[float]:
        return self.vector(text)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vector(t) for t in texts]


@pytest.fixture(params=["edge", "server"])
async def either(request, tmp_path):
    store = QdrantServerStore(":memory:") if request.param == "server" else None
    kwargs = {"store": store} if store else {"storage_dir": tmp_path / "s"}
    async with MemoryClient(embed=MeaningEmbedder(), cwd=tmp_path, **kwargs) as client:
        yield client


def test_the_query_moves_towards_the_turns_found_and_stays_unit_length():
    moved = with_feedback([1.0, 0.0], [[0.0, 1.0], [0.0, 1.0]], weight=0.5)
    assert moved[0] > moved[1] > 0
    assert math.isclose(sum(x * x for x in moved), 1.0)
    assert with_feedback([1.0, 0.0], []) == [1.0, 0.0]


SAILING = (
    "I sailed the Albatross on Sunday.",
    "Sailing the Albatross at dawn, lovely.",
    "Went sailing on the Albatross with Tom.",
    "Rowing club tonight, then the garden.",
    "The Albatross needs new paint.",
)


async def _order(client, query: str) -> list[str]:
    for text in SAILING:
        await client.add(messages=[{"role": "user", "content": text}], user_id="u1")
    found = await client.search_conversation(query, user_id="u1")
    contents = [t.content for t in found.turns]
    return [c for c in contents if c in (SAILING[3], SAILING[4])]


async def test_a_turn_about_what_the_best_matches_name_climbs(either):
    # no word of the question, but the boat the best matches are about; the rowing turn
    # is nearer the question alone
    assert await _order(either, "Which boats did I sail?") == [SAILING[4], SAILING[3]]


async def test_a_query_of_several_sentences_is_searched_as_it_is(either):
    # a stretch of dialogue describes its topic already: no feedback
    assert await _order(either, "I love the sea. Which boats did I sail?") == [
        SAILING[3],
        SAILING[4],
    ]
