"""An offline Agentica ``Model`` for tests and examples: it answers from a script (or a
function of its prompt) and keeps every prompt it was sent, so a test can read what memhub
put in front of the model.

Example:
    >>> from agentica import Agent
    >>> from memhub_agentica import MemHubHooks
    >>> from memhub_agentica.testing import ScriptedModel, ToolCall
    >>> model = ScriptedModel(replies=[ToolCall("weather", {"city": "Munich"}), "Sunny."])
    >>> agent = Agent(model=model, tools=[weather])
    >>> hooks = MemHubHooks(client, user_id="alice")
    >>> await agent.run("What's the weather where I live?", hooks=hooks)
    >>> "<memhub_memories>" in model.last_user()
    True
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agentica import Message
from agentica.model.base import Model
from agentica.model.response import ModelResponse

__all__ = ["ScriptedModel", "ToolCall"]


@dataclass
class ToolCall:
    """A scripted reply that calls a tool (Agentica runs it and asks the model again)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = "call-1"


@dataclass
class ScriptedModel(Model):
    """Answers each call with the next of ``replies``; once they run out, with
    ``respond(messages)`` if given, else ``default``. No network, no key.

    Args:
        replies: the answers in order: a text, or a ``ToolCall``.
        respond: the answer when the script is empty, from the messages sent (e.g. a
            summary of the memories found in the prompt).
        default: the answer when neither gives one.

    ``prompts`` keeps each call's messages as ``(role, text)`` pairs, oldest call first.
    """

    id: str = "scripted"
    replies: list[str | ToolCall] = field(default_factory=list)
    respond: Callable[[list[Message]], str] | None = None
    default: str = "OK."
    prompts: list[list[tuple[str, str]]] = field(default_factory=list)

    @property
    def request_kwargs(self) -> dict[str, Any]:
        return {}

    async def invoke(self, messages: list[Message]) -> Any:
        raise NotImplementedError("ScriptedModel answers through response()")

    async def invoke_stream(self, messages: list[Message]) -> Any:
        raise NotImplementedError("ScriptedModel answers through response_stream()")

    async def response(self, messages: list[Message]) -> ModelResponse:
        self.prompts.append([(m.role, m.get_content_string()) for m in messages])
        reply = self._next(messages)
        if isinstance(reply, ToolCall):
            call = {
                "id": reply.id,
                "type": "function",
                "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
            }
            messages.append(Message(role="assistant", content="", tool_calls=[call]))
            return ModelResponse(content="")
        messages.append(Message(role="assistant", content=reply))
        return ModelResponse(content=reply)

    async def response_stream(self, messages: list[Message]) -> AsyncIterator[ModelResponse]:
        yield await self.response(messages)

    def _next(self, messages: list[Message]) -> str | ToolCall:
        if self.replies:
            return self.replies.pop(0)
        if self.respond is not None:
            return self.respond(messages)
        return self.default

    def system(self, call: int = -1) -> str:
        """The system message of a call (the last by default), or ``""``."""
        return next((text for role, text in self.prompts[call] if role == "system"), "")

    def last_user(self, call: int = -1) -> str:
        """The last user message of a call: where ``MemHubHooks`` puts the memories."""
        return [text for role, text in self.prompts[call] if role == "user"][-1]

    def everything(self, call: int = -1) -> str:
        """Every message of a call, one after another."""
        return "\n".join(text for _, text in self.prompts[call])
