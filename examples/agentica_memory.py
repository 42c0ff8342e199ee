"""The quickstart's Agentica example, offline: three user turns, then the session persisted.

memhub keeps the long-term memory (across sessions); Agentica's WorkingMemory keeps
the current session window. ``MemHubHooks`` does per turn what the quickstart does
by hand: search memhub with the user's message and hand the memories to the model,
and at the end of the session it adds the session's messages in one
``client.add(messages=...)``. The memories ride on the user turn rather than in
``prompt_config.additional_context``, so the provider's prompt cache survives
(see ``MemHubHooks``). A second session then shows the memories coming back.

``memhub_agentica.testing.ScriptedModel`` stands in for ``OpenAIChat``: it answers a
"summarise" request from what it finds in its own prompt, so you can see what reached it.

Run: python examples/agentica_memory.py   (needs memhub-agentica)
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import tempfile

TMP = tempfile.TemporaryDirectory()
os.environ.setdefault(
    "AGENTICA_HOME", os.path.join(TMP.name, "agentica")
)  # agentica writes here on import
os.environ.setdefault("MEMHUB_CONFIG", os.path.join(TMP.name, "config.yaml"))

from agentica import Agent, Message  # noqa: E402

from memhub import MemoryClient  # noqa: E402
from memhub_agentica import MemHubHooks  # noqa: E402
from memhub_agentica.testing import ScriptedModel  # noqa: E402

APP_ID = "agentica"  # optional; the default app id otherwise
USER_ID = "demo_user"
_MEMORIES = re.compile(r"<memhub_memories>(.*?)</memhub_memories>", re.DOTALL)


def summarise(messages: list[Message]) -> str:
    """What the stand-in model answers: it acknowledges statements, and on a "summarise"
    request lists the memhub memories and earlier user turns it finds in its prompt."""
    question = messages[-1].get_content_string()
    if "总结" not in question:
        return "好的，记住了。"
    prompt = "\n".join(m.get_content_string() for m in messages)
    found = [
        line[2:].split(" [")[0]
        for block in _MEMORIES.findall(prompt)
        for line in block.splitlines()
        if line.startswith("- ")
    ]
    said = [
        _MEMORIES.sub("", m.get_content_string()).strip()
        for m in messages[1:-1]
        if m.role == "user"
    ]
    facts = list(dict.fromkeys(found + said))
    return "我了解到：" + "；".join(facts) if facts else "我还不了解你。"


def quiet(agent: Agent) -> Agent:
    """Every new Agent resets Agentica's log level to INFO; keep the transcript readable."""
    logging.getLogger("agentica").setLevel(logging.ERROR)
    return agent


async def main() -> None:
    memory = MemoryClient(mode="system1", storage_dir=os.path.join(TMP.name, "data"))
    hooks = MemHubHooks(
        memory, user_id=USER_ID, app_id=APP_ID, add_every=0
    )  # add once, at the session's end
    try:
        agent = quiet(
            Agent(
                model=ScriptedModel(respond=summarise),
                add_history_to_context=True,
                instructions="你是一个友好的助手，请记住用户告诉你的信息。",
            )
        )
        user_turns = [
            "我最喜欢的颜色是蓝色",
            "我喜欢吃川菜",
            "总结一下你了解到的关于我的信息",
        ]
        for user_msg in user_turns:
            reply = await agent.run(user_msg, hooks=hooks)
            print(f"User: {user_msg}")
            print(f"Assistant: {reply.content}\n")

        write = await hooks.flush_pending(agent)
        print(
            f"Session persisted: memory_id={write.memory_id[:8]}…  "
            f"extracted={write.extracted_count}  commit={write.commit_passed}"
        )

        print("\n== a new session")
        model = ScriptedModel(respond=summarise)
        agent = quiet(
            Agent(model=model, add_history_to_context=True, instructions="你是一个友好的助手。")
        )
        question = "总结一下你了解到的关于我的信息"
        reply = await agent.run(question, hooks=hooks)
        print(f"User: {question}")
        print(f"Assistant: {reply.content}")
        print(f"memory reached the prompt: {'我最喜欢的颜色是蓝色' in model.everything()}")
        await hooks.flush_pending(agent)
    finally:
        await memory.aclose()
        TMP.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
