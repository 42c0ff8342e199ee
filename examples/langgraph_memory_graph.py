"""A LangGraph chat graph with long-term memory, offline: what the user says in session 1
is in the model's prompt in session 2.

    recall (memory_search_node) -> model -> remember (memory_add_node)

The model is a scripted fake, so the script runs without any API key; swap in
any LangChain chat model. Checkpoints and memories share one memhub store.

Run: .venv/bin/python examples/langgraph_memory_graph.py
"""

from __future__ import annotations

import os
import tempfile

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import BaseMessage, SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from memhub import MemoryClient
from memhub_langgraph import MemHubCheckpointer, memory_add_node, memory_search_node


class State(MessagesState):
    memories: str  # the block memory_search_node writes


class ScriptedModel(GenericFakeChatModel):
    """Replies from a script, and keeps every prompt it was sent (to show what it saw)."""

    prompts: list[list[BaseMessage]] = []

    def _generate(self, messages, *args, **kwargs):
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def build(client: MemoryClient, model: ScriptedModel, checkpointer: MemHubCheckpointer):
    def call_model(state: State) -> dict:
        system = SystemMessage(
            "You are a helpful cooking assistant.\n\n" + state.get("memories", "")
        )
        return {"messages": [model.invoke([system, *state["messages"]])]}

    builder = StateGraph(State)
    builder.add_node("recall", memory_search_node(client))
    builder.add_node("model", call_model)
    builder.add_node("remember", memory_add_node(client))
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", "remember")
    builder.add_edge("remember", END)
    return builder.compile(checkpointer=checkpointer)


def session(graph, user: str, thread: str, text: str) -> str:
    print(f"\n[{user} / {thread}] user: {text}")
    out = graph.invoke(
        {"messages": [("user", text)]}, {"configurable": {"user_id": user, "thread_id": thread}}
    )
    reply = out["messages"][-1].text
    print(f"[{user} / {thread}] assistant: {reply}")
    return reply


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        # The checkpointer opens (and on close, closes) the client the memory nodes use.
        with MemHubCheckpointer(storage_dir=os.path.join(tmp, "data")) as checkpointer:
            model = ScriptedModel(
                messages=iter(["Noted: vegetarian, and no peanuts.", "How about a chickpea curry?"])
            )
            graph = build(checkpointer.client, model, checkpointer)

            session(graph, "alice", "session-1", "I'm vegetarian and I'm allergic to peanuts.")
            session(graph, "alice", "session-2", "What should I cook tonight?")

            prompt = model.prompts[-1][0].text
            print("\nThe system prompt the model saw in session 2:\n" + prompt)
            assert "I'm vegetarian" in prompt, "session 1's memory should be in session 2's prompt"


if __name__ == "__main__":
    main()
