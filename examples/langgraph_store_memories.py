"""LangGraph's own long-term memory pattern on memhub, offline: a node reads and writes
``runtime.store`` at ``("memories", user_id)``, as LangGraph's docs and LangMem do, and
gets memhub's memory: a changed city replaces the old one, a question is not stored.

    model node: store.search(("memories", user), query=...) -> prompt -> store.put(...)

The model is a scripted fake, so the script runs without any API key; swap in any
LangChain chat model.

Run: .venv/bin/python examples/langgraph_store_memories.py
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import BaseMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime

from memhub_langgraph import MemHubStore


@dataclass
class Context:
    user_id: str


class ScriptedModel(GenericFakeChatModel):
    """Replies from a script, and keeps every prompt it was sent (to show what it saw)."""

    prompts: list[list[BaseMessage]] = []

    def _generate(self, messages, *args, **kwargs):
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def build(model: ScriptedModel, store: MemHubStore):
    def call_model(state: MessagesState, runtime: Runtime[Context]) -> dict:
        namespace = ("memories", runtime.context.user_id)
        said = state["messages"][-1].text
        memories = runtime.store.search(namespace, query=said)  # memhub's search of the user
        info = "\n".join(f"- {m.value['data']}" for m in memories)
        system = SystemMessage(f"You are a helpful assistant.\nUser memories:\n{info}")
        reply = model.invoke([system, *state["messages"]])
        runtime.store.put(namespace, str(uuid.uuid4()), {"data": said})  # memhub's add
        return {"messages": [reply]}

    builder = StateGraph(MessagesState, context_schema=Context)
    builder.add_node("model", call_model)
    builder.add_edge(START, "model")
    builder.add_edge("model", END)
    return builder.compile(checkpointer=InMemorySaver(), store=store)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        with MemHubStore(storage_dir=os.path.join(tmp, "data")) as store:
            model = ScriptedModel(messages=iter(["Noted.", "Sure!", "Noted.", "In Munich."]))
            graph = build(model, store)
            said = [
                ("session-1", "I live in Berlin."),
                ("session-1", "Can you recommend a podcast?"),
                ("session-2", "I moved to Munich last month."),
                ("session-3", "Where do I live?"),
            ]
            for thread, text in said:
                graph.invoke(
                    {"messages": [("user", text)]},
                    {"configurable": {"thread_id": thread}},
                    context=Context(user_id="alice"),
                )
                print(f"[{thread}] user: {text}")

            prompt = model.prompts[-1][0].text
            print("\nThe system prompt the model saw in session 3:\n" + prompt)
            shown = [i.value["content"] for i in store.search(("memories", "alice"))]
            print(f"\nalice's memories: {shown}")


if __name__ == "__main__":
    main()
