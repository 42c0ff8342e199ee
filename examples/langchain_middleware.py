"""LangChain ``create_agent`` with long-term memory: ``MemHubMiddleware``, offline.

Session 1 tells the agent a few facts; memhub stores the run when the agent
finishes. Session 2 is a new thread: the facts come back into the model's system
prompt, recalled for the user's question. A scripted fake chat model stands in for
a real one (swap in ``ChatOpenAI(...)`` and nothing else changes).

Run: python examples/langchain_middleware.py   (needs memhub-langchain)
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.memory import InMemorySaver

from memhub import SyncMemoryClient
from memhub_langchain import MemHubMiddleware


class ScriptedChatModel(GenericFakeChatModel):
    """Answers from a script; remembers the system prompt it was sent, to show it."""

    last_system: str = ""

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any):
        self.last_system = messages[0].text if messages and messages[0].type == "system" else ""
        return super()._generate(messages, *args, **kwargs)


@dataclass
class Context:
    user_id: str


def chat(agent, text: str, user_id: str, thread: str) -> str:
    state = agent.invoke(
        {"messages": [{"role": "user", "content": text}]},
        context=Context(user_id=user_id),
        config={"configurable": {"thread_id": thread}},
    )
    reply = state["messages"][-1].text
    print(f"User: {text}\nAssistant: {reply}")
    return reply


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        with SyncMemoryClient(storage_dir=os.path.join(tmp, "data")) as client:
            middleware = MemHubMiddleware(client)  # user_id comes from the runtime context

            print("== session 1")
            model = ScriptedChatModel(messages=iter(["Noted: Python, and Berlin."]))
            agent = create_agent(
                model,
                system_prompt="You are a concise assistant.",
                middleware=[middleware],
                context_schema=Context,
                checkpointer=InMemorySaver(),
            )
            chat(
                agent,
                "My favourite programming language is Python and I live in Berlin.",
                "alice",
                "s1",
            )

            print("\n== session 2 (a new thread)")
            model = ScriptedChatModel(messages=iter(["You live in Berlin."]))
            agent = create_agent(
                model,
                system_prompt="You are a concise assistant.",
                middleware=[middleware],
                context_schema=Context,
                checkpointer=InMemorySaver(),
            )
            chat(agent, "Where do I live?", "alice", "s2")
            print("The model's system prompt was:")
            print("  " + model.last_system.replace("\n", "\n  "))
            print(f"memory reached the prompt: {'I live in Berlin' in model.last_system}")

            turns = client.search_conversation(
                "favourite programming language", user_id="alice"
            ).turns
            print(f"raw turn kept: {turns[0].content!r} (session {turns[0].session_id})")
            others = client.search("where do I live", user_id="bob").memories.all()
            print(f"bob sees {len(others)} of alice's memories")


if __name__ == "__main__":
    main()
