"""The OpenAI-compatible provider, replayed from VCR cassettes matched on the request body.

The cassettes hold what memhub sends (``llm_replay``); ``tests/cassettes/build.py``
rebuilds them offline from scripted replies after a prompt changes.
"""

from __future__ import annotations

import json

import pytest
from llm_replay import replay

from memhub import MemoryClient, ProviderError
from memhub.ids import to_point_id
from memhub.providers.llm import OpenAICompatibleLLM
from memhub.providers.llm_roles import LLMExtractor, LLMJudge
from memhub.providers.types import Candidate, JudgeItem, Message, Neighbour
from memhub.testing import HashEmbedder


def make_llm(**kw) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM("gpt-4o-mini", api_key="sk-test-replay", backoff=0.01, **kw)


MESSAGES = [
    Message(role="user", content="我住在上海", id="m1"),
    Message(role="assistant", content="好的", id="m2"),
    Message(role="user", content="下个月要搬去北京工作", id="m3"),
]
JUDGE_ITEMS = [
    JudgeItem(
        candidate=Candidate(text="用户搬到北京了", layer="profile"),
        neighbours=[Neighbour(id="TARGET", content="用户住在上海", score=0.8, layer="profile")],
    ),
    JudgeItem(candidate=Candidate(text="用户喜欢川菜", layer="profile"), neighbours=[]),
]


def sent(cassette, index: int = 0) -> tuple[str, str]:
    """The system prompt and the user block of the ``index``-th request replayed."""
    messages = json.loads(cassette.requests[index].body)["messages"]
    return messages[0]["content"], messages[1]["content"]


async def test_extractor_parses_candidates():
    with replay.use_cassette("llm_extract.yaml") as cassette:
        candidates = await LLMExtractor(make_llm()).extract(MESSAGES)
    assert [(c.text, c.layer, c.proactive, c.source_ids) for c in candidates] == [
        ("用户住在上海", "profile", False, ["m1"]),
        ("用户下个月要搬去北京工作", "fact", True, ["m3"]),
    ]
    system, user = sent(cassette)
    assert "Do NOT store: requests or commands to the assistant" in system
    assert user.splitlines() == [
        "[m1] user: 我住在上海",
        "[m2] assistant: 好的",
        "[m3] user: 下个月要搬去北京工作",
    ]


async def test_judge_judges_every_candidate_in_one_call():
    llm = make_llm()
    with replay.use_cassette("llm_judge.yaml") as cassette:
        verdicts = await LLMJudge(llm).judge(JUDGE_ITEMS)
    assert llm.calls == 1
    system, user = sent(cassette)
    assert "Targets must be ids from that item's existing memories" in system
    shown = json.loads(user)  # each candidate with the neighbours the judge is shown
    assert [(e["candidate"], [n["id"] for n in e["existing"]]) for e in shown] == [
        ("用户搬到北京了", ["TARGET"]),
        ("用户喜欢川菜", []),
    ]
    assert verdicts[0].action == "OVERRIDE" and verdicts[0].targets == ["TARGET"]
    assert verdicts[1].action == "ADD"  # a verdict the model left out is never a silent drop


@replay.use_cassette("llm_retry_then_ok.yaml")
async def test_429_and_5xx_are_retried_with_backoff():
    llm = make_llm()
    candidates = await LLMExtractor(llm).extract(MESSAGES)
    assert llm.calls == 3 and len(candidates) == 2


@replay.use_cassette("llm_always_500.yaml")
async def test_retry_budget_is_bounded_then_provider_error():
    llm = make_llm(max_attempts=4)
    with pytest.raises(ProviderError, match="after retries"):
        await llm.complete_json("s", "u")
    assert llm.calls == 4


@replay.use_cassette("llm_unauthorized.yaml")
async def test_auth_errors_are_not_retried():
    llm = make_llm()
    with pytest.raises(ProviderError, match="API key"):
        await llm.complete_json("s", "u")
    assert llm.calls == 1


@replay.use_cassette("llm_not_json.yaml")
async def test_non_json_answer_is_a_provider_error():
    with pytest.raises(ProviderError, match="JSON"):
        await make_llm().complete_json("s", "u")


@replay.use_cassette("llm_add.yaml")
async def test_add_uses_the_llm_extractor_when_given_a_model(tmp_path):
    """One extraction call; no neighbours, so no judge call (the threshold gates it).

    The scripted reply cites a message id that was never sent ("m1"): memhub keeps
    the write's own raw record as the evidence instead, never an unknown id."""
    llm = make_llm()
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as client:
        result = await client.add(
            messages=[{"role": "user", "content": "我住在上海"}], user_id="alice"
        )
        assert llm.calls == 1 and result.extracted_count == 1 and result.commit_passed
        fact = result.decisions[0].memory_id
        stored = await client.engine.store.retrieve("memories", [to_point_id(fact)])
    assert stored[0].payload["content"] == "用户住在上海"
    assert stored[0].payload["evidence"] == result.raw_ids
