"""search() ranks an extracted memory by its own text and by the conversation turn it came from."""

from __future__ import annotations

import re

import pytest

from memhub import MemoryClient
from memhub.testing import HashEmbedder, ScriptedLLM

# What the extractor keeps of each conversation, keyed by a word of its first turn:
# short statements that lose the context that made them worth keeping.
EXTRACTED = {"glacier": "User loved that trip", "Bern": "User loved the walk"}


def extractor(system: str, user: str) -> dict:
    if "verdicts" in system:  # the judge: every candidate is new
        return {"verdicts": [{"index": i, "action": "ADD"} for i in range(user.count('"index"'))]}
    first_id = re.search(r"^\[([^\]]+)\]", user).group(1)
    text = next(t for key, t in EXTRACTED.items() if key in user)
    return {"candidates": [{"text": text, "layer": "fact", "source_ids": [first_id]}]}


async def test_a_memory_is_found_through_the_turn_it_was_extracted_from(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=ScriptedLLM(extractor), cwd=tmp_path
    ) as client:
        alps = await client.add(
            messages=[
                {
                    "role": "user",
                    "content": "Last summer we hiked to the Aletsch glacier in the Alps.",
                },
                {"role": "assistant", "content": "The glacier trails in the Alps are stunning."},
            ],
            user_id="u",
        )
        await client.add(
            messages=[{"role": "user", "content": "We took a walk around the old town of Bern."}],
            user_id="u",
        )
        query = "What should I pack for a glacier walk in the Alps?"
        hits = (await client.search(query, user_id="u")).memories.all()
        # By its own text "User loved the walk" is the closer one (it shares "walk");
        # the turn "User loved that trip" came from is the one about the Alps glacier.
        assert [m.content for m in hits] == ["User loved that trip", "User loved the walk"]
        assert hits[0].id == alps.decisions[0].memory_id and hits[0].score > hits[1].score


async def test_a_memory_without_a_source_turn_is_not_demoted(client):
    await client.add(content="We took a walk around the old town of Bern.", user_id="u")
    memorized = await client.memorize(
        "Packing list for the Alps glacier walk: crampons, rope.", user_id="u"
    )
    hits = (
        await client.search("What should I pack for a glacier walk in the Alps?", user_id="u")
    ).memories.all()
    assert hits[0].id == memorized.atom_id and hits[0].score == 1.0


@pytest.mark.parametrize(
    ("turn", "separate", "query", "expected"),
    [
        (
            "My editor is VS Code. My dog is called Rex.",
            "I use the Vim keybindings extension",
            "which code editor",
            ["My editor is VS Code", "I use the Vim keybindings extension", "My dog is called Rex"],
        ),
        (
            "I live in Berlin. I work at SAP.",
            "My flat is in Kreuzberg",
            "where do I live",
            ["I live in Berlin", "My flat is in Kreuzberg", "I work at SAP"],
        ),
    ],
)
async def test_a_turn_lifts_only_the_memory_it_matched_for(
    tmp_path, e5, turn, separate, query, expected
):
    """The turn matches the query for one of its clauses; the clause beside it stays where its own
    text puts it.
    """
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(content=turn, user_id="u")
        await client.add(content=separate, user_id="u")
        hits = (await client.search(query, user_id="u")).memories.all()
        assert [m.content for m in sorted(hits, key=lambda m: -m.score)] == expected


@pytest.mark.parametrize(
    ("turn", "change", "query"),
    [
        ("我住在上海，在字节跳动工作", "我搬到北京了", "住在哪"),
        ("I live in Berlin. I work at SAP.", "I moved to Munich", "where do I live"),
    ],
)
async def test_a_replaced_memory_still_claims_its_turn(tmp_path, e5, turn, change, query):
    """After a move, the old turn matches "where do I live" for the old city, not for the job beside
    it.
    """
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(content=turn, user_id="u")
        moved = await client.add(content=change, user_id="u")
        assert [d.action for d in moved.decisions] == ["OVERRIDE"]
        hits = (await client.search(query, user_id="u")).memories.all()
        assert sorted(hits, key=lambda m: -m.score)[0].content == change
