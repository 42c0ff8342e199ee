"""What the write path reads from its ports is declared in the Protocols and checked at the door;
reads that gather "everything" page through the store instead of stopping at a fixed limit."""

from __future__ import annotations

import pytest

from memhub import InvalidInputError, MemoryClient
from memhub.embed.base import Embedder
from memhub.providers.heuristic import HeuristicJudge
from memhub.providers.llm_roles import LLMJudge
from memhub.providers.types import Judge
from memhub.store.base import StoredPoint, every
from memhub.store.edge import EdgeStore
from memhub.testing import HashEmbedder, ScriptedLLM


class NoFloor:
    name, dim = "no-floor", 8

    async def embed_query(self, text):
        return [1.0] * 8

    async def embed_passages(self, texts):
        return [[1.0] * 8 for _ in texts]


class UndeclaredJudge:
    async def judge(self, items):
        return []


def test_the_shipped_parts_declare_what_the_write_path_reads():
    assert isinstance(HashEmbedder(), Embedder) and HashEmbedder.similarity_floor == 0.0
    assert isinstance(HeuristicJudge(), Judge) and HeuristicJudge.free
    assert isinstance(LLMJudge(ScriptedLLM([])), Judge) and not LLMJudge.free


def test_an_embedder_without_a_similarity_floor_is_refused_at_once(tmp_path):
    with pytest.raises(InvalidInputError, match="similarity_floor"):
        MemoryClient(storage_dir=tmp_path / "s", embed=NoFloor(), cwd=tmp_path)


async def test_a_judge_that_does_not_say_whether_it_is_free_is_refused(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), jev=UndeclaredJudge(), cwd=tmp_path
    ) as c:
        with pytest.raises(InvalidInputError, match="free"):
            await c.add("I live in Lyon", user_id="alice")


async def test_every_pages_past_any_fixed_limit(tmp_path):
    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        ids = [f"00000000-0000-0000-0000-{i:012d}" for i in range(700)]  # nearly three pages
        await store.upsert("events", [StoredPoint(i, {"atom_id": "a"}) for i in ids])
        assert sorted(p.id for p in await every(store, "events")) == ids
    finally:
        await store.close()


async def test_a_model_that_cannot_complete_json_is_refused(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm="gpt-4o-mini", cwd=tmp_path
    ) as c:
        with pytest.raises(InvalidInputError, match="complete_json"):
            await c.add("I live in Lyon", user_id="alice")
        assert await c.list(user_id="alice") == []
