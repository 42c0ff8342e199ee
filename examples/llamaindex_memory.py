"""LlamaIndex chat engine with long-term memory: ``MemHubMemory``, offline.

``MemHubMemory`` wraps LlamaIndex's ``Memory`` (the short-term chat buffer) with a
``MemHubMemoryBlock`` that recalls memhub memories into the prompt, and adds every
finished turn to memhub. Session 2 is a new engine and a new session: what was
said in session 1 comes back. A scripted ``MockLLM`` stands in for a real LLM.

Run: python examples/llamaindex_memory.py   (needs memhub-llamaindex)
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from llama_index.core.base.llms.types import CompletionResponse
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback

from memhub import SyncMemoryClient
from memhub_llamaindex import MemHubMemory


class ScriptedLLM(MockLLM):
    """Answers from a script; keeps the last prompt it was sent, to show it."""

    _replies: list[str] = PrivateAttr(default_factory=list)
    last_prompt: str = ""

    def __init__(self, *replies: str) -> None:
        super().__init__()
        self._replies = list(replies)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.last_prompt = prompt
        return CompletionResponse(text=self._replies.pop(0))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        with SyncMemoryClient(storage_dir=os.path.join(tmp, "data")) as client:
            print("== session 1")
            memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id="s1")
            engine = SimpleChatEngine.from_defaults(
                llm=ScriptedLLM("Got it.", "Noted."), memory=memory
            )
            for text in ("I am vegetarian.", "My sister Mia visits me in June."):
                print(f"User: {text}\nAssistant: {engine.chat(text)}")

            print("\n== session 2 (a new engine, a new session)")
            llm = ScriptedLLM("A vegetarian lasagne, then; Mia will like it too.")
            memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id="s2")
            engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
            question = "What should I cook when my sister visits?"
            print(f"User: {question}\nAssistant: {engine.chat(question)}")
            print("The LLM's prompt was:")
            print("  " + llm.last_prompt.strip().replace("\n", "\n  "))
            print(f"memory reached the prompt: {'I am vegetarian' in llm.last_prompt}")

            turns = client.search_conversation(
                "sister visits", user_id="alice", session_id="s1"
            ).turns
            print(f"raw turn kept: {turns[0].content!r} (session {turns[0].session_id})")


if __name__ == "__main__":
    main()
