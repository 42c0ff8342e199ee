"""What a model returns is checked against what it was sent: unknown ids never become
evidence or targets, and malformed JSON anywhere is one ``ProviderError``."""

from __future__ import annotations

import pytest

from memhub import MemoryClient, ProviderError
from memhub.providers.llm_roles import LLMExtractor, LLMJudge
from memhub.providers.types import Candidate, JudgeItem, Message, Neighbour
from memhub.testing import HashEmbedder, ScriptedLLM

SENT = [
    Message(role="user", content="我住在上海", id="r1"),
    Message(role="user", content="在阿里工作", id="r2"),
]
ITEMS = [
    JudgeItem(
        candidate=Candidate(text="用户搬到北京了", layer="profile"),
        neighbours=[Neighbour(id="n1", content="用户住在上海", score=0.8, layer="profile")],
    ),
    JudgeItem(candidate=Candidate(text="用户喜欢川菜", layer="profile")),
]


def candidate(*ids: str) -> dict:
    return {"candidates": [{"text": "用户住在上海", "layer": "profile", "source_ids": list(ids)}]}


async def test_the_extractor_keeps_only_ids_it_sent():
    found = await LLMExtractor(ScriptedLLM([candidate("r1", "made-up", "r1")])).extract(SENT)
    assert found[0].source_ids == ["r1"]


async def test_a_candidate_citing_only_unknown_ids_cites_the_whole_write():
    found = await LLMExtractor(ScriptedLLM([candidate("m9")])).extract(SENT)
    assert found[0].source_ids == ["r1", "r2"]


async def test_judge_targets_outside_what_the_item_was_shown_are_dropped():
    reply = {
        "verdicts": [
            {"index": 0, "action": "OVERRIDE", "targets": ["n1", "n2"]},
            {"index": 1, "action": "SUPPLEMENT", "targets": ["n1"]},
        ]
    }
    verdicts = await LLMJudge(ScriptedLLM([reply])).judge(ITEMS)
    assert [v.targets for v in verdicts] == [["n1"], []]


@pytest.mark.parametrize(
    "reply",
    [
        {"verdicts": [{"index": 2, "action": "ADD"}]},  # an item that was never sent
        {"verdicts": [{"index": 0, "action": "ADD"}, {"index": 0, "action": "NOOP"}]},
        {"verdicts": [{"index": 0, "action": "MAYBE"}]},
        {"verdicts": "none"},
    ],
)
async def test_malformed_verdicts_are_a_provider_error(reply):
    with pytest.raises(ProviderError, match="judge"):
        await LLMJudge(ScriptedLLM([reply])).judge(ITEMS)


@pytest.mark.parametrize("reply", [{"candidates": "x"}, {"candidates": [{"layer": "profile"}]}])
async def test_malformed_candidates_are_a_provider_error(reply):
    with pytest.raises(ProviderError, match="extractor"):
        await LLMExtractor(ScriptedLLM([reply])).extract(SENT)


@pytest.mark.parametrize(
    "reply",
    [
        {"derived": "x"},
        {"derived": [{"text": 3}]},
        {"derived": [{"evidence_ids": "abc"}]},
        {"derived": [1]},
    ],
)
async def test_a_malformed_digest_is_a_provider_error_and_changes_nothing(tmp_path, reply):
    llm = ScriptedLLM(
        lambda system, user: reply if "pattern" in system.lower() else {"candidates": []}
    )
    async with MemoryClient(
        mode="dual", storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as client:
        await client.add("I drink tea every morning", user_id="alice")
        await client.add("I drink green tea at work", user_id="alice")
        before = await client.list(user_id="alice", include_history=True)
        with pytest.raises(ProviderError, match="digest"):
            await client.digest()
        assert await client.list(user_id="alice", include_history=True) == before
