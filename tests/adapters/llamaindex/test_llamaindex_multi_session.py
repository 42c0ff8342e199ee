"""``MemHubMemory`` in a ``SimpleChatEngine``, one session id per session, the real e5 embedder."""

from __future__ import annotations

import pytest
from li_fakes import ScriptedLLM
from llama_index.core.chat_engine import SimpleChatEngine
from multi_session import STORIES, Story, assert_current, assert_every_turn

from memhub import SyncMemoryClient
from memhub_llamaindex import MemHubMemory


@pytest.mark.parametrize("story", STORIES)
def test_the_last_session_sees_only_the_current_value(story: Story, e5, tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "store", embed=e5, cwd=tmp_path) as client:
        llm = ScriptedLLM(*["Got it."] * story.turns)
        for i, turns in enumerate(story.sessions, 1):
            memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id=f"s{i}")
            engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
            for text in turns:
                engine.chat(text)

        assert_current(llm.prompts[-1], story)
        assert_every_turn(llm.prompts, story)
