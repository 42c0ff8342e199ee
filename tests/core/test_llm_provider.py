"""The OpenAI-compatible provider, replayed from VCR cassettes (no network).

Re-record against a real endpoint with ``MEMHUB_RECORD=1 OPENAI_API_KEY=… pytest tests/core/test_llm_provider.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import vcr

from memhub import MemoryClient, ProviderError
from memhub.providers.llm import OpenAICompatibleLLM
from memhub.providers.llm_roles import LLMExtractor, LLMJudge
from memhub.providers.types import Candidate, JudgeItem, Message, Neighbour
from memhub.testing import HashEmbedder

CASSETTES = Path(__file__).parents[1] / "cassettes"
RECORD = os.environ.get("MEMHUB_RECORD") == "1"
replay = vcr.VCR(cassette_library_dir=str(CASSETTES), record_mode="once" if RECORD else "none",
                 match_on=["method", "scheme", "host", "path"], filter_headers=["authorization"])  # fmt: skip


def make_llm(**kw) -> OpenAICompatibleLLM:
    key = os.environ.get("OPENAI_API_KEY", "sk-test-replay") if RECORD else "sk-test-replay"
    return OpenAICompatibleLLM("gpt-4o-mini", api_key=key, backoff=0.01, **kw)


MESSAGES = [Message(role="user", content="我住在上海", id="m1"), Message(role="assistant", content="好的", id="m2"),
            Message(role="user", content="下个月要搬去北京工作", id="m3")]  # fmt: skip


@replay.use_cassette("llm_extract.yaml")
async def test_extractor_parses_candidates():
    candidates = await LLMExtractor(make_llm()).extract(MESSAGES)
    assert [(c.text, c.layer, c.proactive, c.source_ids) for c in candidates] == [
        ("用户住在上海", "profile", False, ["m1"]),
        ("用户下个月要搬去北京工作", "fact", True, ["m3"]),
    ]


@replay.use_cassette("llm_judge.yaml")
async def test_judge_judges_every_candidate_in_one_call():
    llm = make_llm()
    items = [JudgeItem(candidate=Candidate(text="用户搬到北京了", layer="profile"),
                       neighbours=[Neighbour(id="TARGET", content="用户住在上海", score=0.8, layer="profile")]),
             JudgeItem(candidate=Candidate(text="用户喜欢川菜", layer="profile"), neighbours=[])]  # fmt: skip
    verdicts = await LLMJudge(llm).judge(items)
    assert llm.calls == 1
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


@replay.use_cassette("llm_extract.yaml")
async def test_add_uses_the_llm_extractor_when_given_a_model(tmp_path):
    """One extraction call; no neighbours, so no judge call (the threshold gates it)."""
    async with MemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=make_llm(), cwd=tmp_path) as client:
        result = await client.add(messages=[{"role": "user", "content": "我住在上海"}], user_id="alice")
        assert result.extracted_count == 2 and result.commit_passed
        assert {m.content for m in (await client.search("住", user_id="alice")).memories.all()} >= {"用户住在上海"}
