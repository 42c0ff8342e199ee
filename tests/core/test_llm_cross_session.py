"""With an LLM configured, the judge is shown what the user said in earlier sessions.

Replayed from ``tests/cassettes/llm_cross_session.yaml``, matched on the prompts sent
(the system prompt and the user block of every call), so the test fails if the judge
prompt loses the earlier session's memory or the extraction prompt its instructions.
Memory ids are made deterministic for the replay: the prompts cite them.
"""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path

import pytest
import vcr

from memhub import MemoryClient
from memhub.engine import hmg as hmg_module
from memhub.engine.write import write as write_module
from memhub.providers.llm import OpenAICompatibleLLM
from memhub.testing import HashEmbedder

CASSETTES = Path(__file__).parents[1] / "cassettes"


def _prompts(request) -> list:
    return json.loads(request.body)["messages"]


def _same_prompts(r1, r2) -> None:
    assert _prompts(r1) == _prompts(r2)


replay = vcr.VCR(
    cassette_library_dir=str(CASSETTES), record_mode="none", filter_headers=["authorization"]
)
replay.register_matcher("prompts", _same_prompts)


@pytest.fixture
def fixed_ids(monkeypatch):
    ids = (f"01J00000000000000000000{n:03d}" for n in count())
    monkeypatch.setattr(write_module, "new_id", lambda: next(ids))
    monkeypatch.setattr(hmg_module, "new_id", lambda: next(ids))


@replay.use_cassette("llm_cross_session.yaml", match_on=["method", "path", "prompts"])
async def test_the_judge_sees_an_earlier_sessions_memory_and_overrides_it(fixed_ids, tmp_path):
    llm = OpenAICompatibleLLM("gpt-4o-mini", api_key="sk-test-replay", backoff=0.01)
    async with MemoryClient(
        storage_dir=tmp_path / "s", embed=HashEmbedder(), llm=llm, cwd=tmp_path
    ) as c:
        first = await c.add(
            messages=[{"role": "user", "content": "I live in Berlin."}],
            user_id="u",
            session_id="t1",
        )
        later = await c.add(
            messages=[{"role": "user", "content": "I moved to Munich last month."}],
            user_id="u",
            session_id="t2",
        )
        current = [m.content for m in await c.list(user_id="u")]
    berlin = first.decisions[0].memory_id
    assert [(d.action, d.targets) for d in later.decisions] == [("OVERRIDE", [berlin])]
    assert current == ["The user lives in Munich"]
    assert llm.calls == 3  # two extractions, one judgement: at most two calls per add
