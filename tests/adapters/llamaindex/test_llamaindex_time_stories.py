"""Stories told over months through ``MemHubMemory`` in a ``SimpleChatEngine`` (one session id
per session, each on its own day), the real e5 embedder."""

from __future__ import annotations

import pytest
from li_fakes import ScriptedLLM
from llama_index.core.chat_engine import SimpleChatEngine
from time_stories import TIME_STORIES, TimedStory, assert_shown, run

from memhub import SyncMemoryClient
from memhub_llamaindex import MemHubMemory


@pytest.mark.parametrize("story", TIME_STORIES)
def test_the_last_session_sees_the_newest_value_dated_as_said(story: TimedStory, e5, tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "store", embed=e5, cwd=tmp_path) as client:
        llm = ScriptedLLM(*["Got it."] * story.turns)

        def session(i: int, turns: tuple[str, ...]) -> None:
            memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id=f"s{i}")
            engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
            for text in turns:
                engine.chat(text)

        run(story, session)
        assert_shown(llm.prompts[-1], story)
