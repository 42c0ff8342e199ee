"""A scripted Agentica ``Model``: answers from a script and keeps every prompt it was sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agentica import Message
from agentica.model.base import Model
from agentica.model.response import ModelResponse


@dataclass
class ScriptedModel(Model):
    id: str = "scripted"
    replies: list[str] = field(default_factory=list)
    prompts: list[list[tuple[str, str]]] = field(default_factory=list)

    @property
    def request_kwargs(self) -> dict[str, Any]:
        return {}

    async def invoke(self, messages: list[Message]) -> Any:
        raise NotImplementedError("offline model: use response()")

    async def invoke_stream(self, messages: list[Message]) -> Any:
        raise NotImplementedError("offline model: use response_stream()")

    async def response(self, messages: list[Message]) -> ModelResponse:
        self.prompts.append([(m.role, m.get_content_string()) for m in messages])
        text = self.replies.pop(0) if self.replies else "OK."
        messages.append(Message(role="assistant", content=text))
        return ModelResponse(content=text)

    async def response_stream(self, messages: list[Message]) -> AsyncIterator[ModelResponse]:
        yield await self.response(messages)

    def system(self, call: int = -1) -> str:
        return next((text for role, text in self.prompts[call] if role == "system"), "")

    def last_user(self, call: int = -1) -> str:
        return [text for role, text in self.prompts[call] if role == "user"][-1]

    def everything(self, call: int = -1) -> str:
        return "\n".join(text for _, text in self.prompts[call])


@dataclass
class ToolCallingModel(ScriptedModel):
    """Calls ``tool`` with ``args`` first, then answers from the script."""

    tool: str = ""
    args: str = "{}"

    async def response(self, messages: list[Message]) -> ModelResponse:
        if self.prompts:
            return await super().response(messages)
        self.prompts.append([(m.role, m.get_content_string()) for m in messages])
        call = {
            "id": "call-1",
            "type": "function",
            "function": {"name": self.tool, "arguments": self.args},
        }
        messages.append(Message(role="assistant", content="", tool_calls=[call]))
        return ModelResponse(content="")
