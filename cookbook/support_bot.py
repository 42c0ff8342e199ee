"""A support bot that remembers each customer's product and plan across sessions, offline.

LangChain's ``create_agent`` with two tools and ``MemHubMiddleware``: the customer
says once which router and plan they have; days later, in a new conversation, the
bot already knows and goes straight to the right troubleshooting guide and the
right support line. Another customer's facts never leak in.

The model is a rule-based stand-in so the walk-through runs offline and
deterministically; it reads the memories the middleware put in its system prompt,
as an LLM would. Swap in ``ChatOpenAI(model="gpt-4o-mini")`` for the real thing.
See support_bot.md for the walk-through.

Run: python cookbook/support_bot.py   (needs memhub-langchain)
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from memhub import SyncMemoryClient
from memhub_langchain import MemHubMiddleware

# -- the support knowledge the tools serve --------------------------------------------

GUIDES = {
    "Acme X200": "1) update to firmware 4.2, 2) move the router off the floor, 3) switch the 5 "
    "GHz channel to 36",
    "Acme Mesh M5": "1) re-pair the satellite nodes, 2) keep nodes within two rooms of each other",
}
PLANS = {
    "Basic": "email support, answered within 48 hours",
    "Business": "the 24/7 priority line at +49 30 1234 567",
    "Premium": "an on-site technician within one business day",
}


@tool
def troubleshooting_guide(product: str) -> str:
    """The troubleshooting steps for one product."""
    return GUIDES.get(product, "no guide for this product; escalate to a human agent")


@tool
def plan_benefits(plan: str) -> str:
    """What support a plan includes."""
    return PLANS.get(plan, "unknown plan")


# -- an offline stand-in for the LLM ----------------------------------------------------

_PRODUCT = re.compile("|".join(re.escape(p) for p in GUIDES))
_PLAN = re.compile(r"\b(Basic|Business|Premium) plan\b")
_PROBLEM = re.compile(r"drop|slow|disconnect|not working|keeps", re.IGNORECASE)


class RuleBasedSupportModel(BaseChatModel):
    """Answers like a support agent would, from what is in its prompt: memories, the chat, tool
    results.
    """

    @property
    def _llm_type(self) -> str:
        return "rule-based-support"

    def bind_tools(self, tools: Any, **kwargs: Any) -> RuleBasedSupportModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        known = "\n".join(m.text for m in messages if not isinstance(m, ToolMessage))
        product, plan = _PRODUCT.search(known), _PLAN.search(known)
        last = messages[-1]
        if isinstance(last, ToolMessage):
            results = {m.name: m.text for m in messages if isinstance(m, ToolMessage)}
            text = f"For your {product.group(0)}, please try: {results['troubleshooting_guide']}."
            if "plan_benefits" in results:
                text += (
                    f" If it keeps happening, your {plan.group(1)} plan "
                    f"includes {results['plan_benefits']}."
                )
            reply = AIMessage(content=text)
        elif isinstance(last, HumanMessage) and _PROBLEM.search(last.text):
            if product is None:
                reply = AIMessage(
                    content="Sorry to hear that! "
                    "Which router model do you have, and which plan are you on?"
                )
            else:
                calls = [
                    {
                        "name": "troubleshooting_guide",
                        "args": {"product": product.group(0)},
                        "id": "guide",
                    }
                ]
                if plan:
                    calls.append(
                        {"name": "plan_benefits", "args": {"plan": plan.group(1)}, "id": "plan"}
                    )
                reply = AIMessage(content="", tool_calls=calls)
        else:
            noted = ", ".join(x.group(0) for x in (product, plan) if x)
            reply = AIMessage(
                content=f"Thanks! I've noted: {noted}." if noted else "How can I help?"
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])


# -- the bot ----------------------------------------------------------------------------


@dataclass
class Customer:
    user_id: str


SYSTEM = (
    "You are Acme's support assistant. Be brief and specific to the customer's product and plan."
)


def make_bot(client: SyncMemoryClient):
    return create_agent(
        RuleBasedSupportModel(),
        tools=[troubleshooting_guide, plan_benefits],
        system_prompt=SYSTEM,
        middleware=[MemHubMiddleware(client, app_id="support", limit=5)],
        context_schema=Customer,
        checkpointer=InMemorySaver(),
    )


def say(bot, customer: str, conversation: str, text: str) -> str:
    state = bot.invoke(
        {"messages": [{"role": "user", "content": text}]},
        context=Customer(user_id=customer),
        config={"configurable": {"thread_id": conversation}},
    )
    reply = state["messages"][-1].text
    print(f"{customer}: {text}\nbot: {reply}")
    return reply


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        with SyncMemoryClient(storage_dir=os.path.join(tmp, "data")) as client:
            bot = make_bot(client)

            print("== Monday: Dana's first conversation")
            say(
                bot,
                "dana",
                "mon-1",
                "Hi, I'm Dana. We use the Acme X200 router and we're on the Business plan.",
            )

            print("\n== Thursday: a new conversation, nothing repeated")
            reply = say(bot, "dana", "thu-7", "Our Wi-Fi keeps dropping every few minutes.")
            print(
                f"remembered product and "
                f"plan: {'Acme X200' in reply and '24/7 priority line' in reply}"
            )

            print("\n== Eli, a different customer with the same problem")
            reply = say(bot, "eli", "thu-8", "Our Wi-Fi keeps dropping every few minutes.")
            print(f"Dana's details stayed private: {'Acme X200' not in reply}")

            print("\n== Friday: billing upgrades Dana to Premium and corrects the memory")
            plan = client.search(
                "which plan is the customer on", user_id="dana", app_ids=["support"]
            ).memories.all()
            old = next(m for m in plan if "Business plan" in m.content)
            new_id = client.update(
                old.id, old.content.replace("Business plan", "Premium plan"), user_id="dana"
            )
            reply = say(bot, "dana", "fri-2", "The Wi-Fi keeps dropping again.")
            print(f"uses the corrected plan: {'on-site technician' in reply}")
            print(f"history kept: {client.get(new_id, user_id='dana').evolution_chain == [old.id]}")

            print("\n== what memhub keeps about Dana (app 'support')")
            for item in client.list(user_id="dana", app_ids=["support"]):
                print(f"  [{item.layer}] {item.content}")
            turn = client.search_conversation(
                "router plan", user_id="dana", app_ids=["support"]
            ).turns[0]
            print(f"  raw turn from conversation {turn.session_id}: {turn.content!r}")


if __name__ == "__main__":
    main()
