"""``MemHubMemory``: memhub as a classic ``BaseMemory`` (``langchain-classic`` chains).

Needs the ``classic`` extra: ``pip install "memhub-langchain[classic]"``.
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_classic.base_memory import BaseMemory
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'MemHubMemory needs langchain-classic: pip install "memhub-langchain[classic]"'
    ) from err

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    get_buffer_string,
)
from pydantic import ConfigDict, Field, PrivateAttr, SkipValidation

from memhub.bridge import CHAT_GROUPS, Client, MemHub, render, search_kwargs
from memhub.models import WriteResult


class MemHubMemory(BaseMemory):
    """Long-term memory for classic chains (``ConversationChain``, ``LLMChain``, …).

    ``load_memory_variables`` searches memhub with the chain's input and returns the
    formatted memories, followed by the current session's turns (so it replaces
    ``ConversationBufferMemory`` in the default ``ConversationChain`` prompt).
    ``save_context`` only buffers the turn; the session is added to memhub in one
    ``client.add(messages=...)`` on ``clear()`` or ``end_session()``, the boundary the
    memhub quickstart recommends (one extraction and one judgement per session).

    Example:
        >>> memory = MemHubMemory(client=client, user_id="alice")
        >>> chain = ConversationChain(llm=llm, memory=memory)
        >>> chain.invoke({"input": "我下周去杭州出差"})
        >>> memory.end_session()   # persists the session

    Args:
        client: a ``SyncMemoryClient`` or ``MemoryClient`` (sync and async chains both work).
        user_id / app_id / agent_id / session_id: the memhub scope.
        memory_key: the prompt variable filled (``history`` fits ``ConversationChain``).
        include_session: also render the current session's turns after the memories.
        return_messages: return messages (for a ``MessagesPlaceholder``) instead of a string.
        input_key / output_key: which chain input and output make a turn (guessed when there is
        one).
        limit / groups / template: what is recalled and how it is rendered.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: SkipValidation[Client] = Field(exclude=True)
    user_id: str
    app_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    memory_key: str = "history"
    include_session: bool = True
    return_messages: bool = False
    input_key: str | None = None
    output_key: str | None = None
    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    limit: int = Field(default=10, ge=1, le=200)
    groups: tuple[str, ...] = CHAT_GROUPS
    template: str | None = None

    _memhub: MemHub = PrivateAttr()
    _turns: list[BaseMessage] = PrivateAttr(default_factory=list)

    def model_post_init(self, context: Any, /) -> None:
        self._memhub = MemHub(self.client)
        search_kwargs(
            user_id=self.user_id, app_id=None, agent_id=None, limit=self.limit, groups=self.groups
        )

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    @property
    def buffer(self) -> list[BaseMessage]:
        """The current session's turns, not yet added to memhub."""
        return list(self._turns)

    # -- load -------------------------------------------------------------------------

    def _input(self, inputs: dict[str, Any]) -> str:
        if self.input_key is not None:
            return str(inputs[self.input_key])
        keys = [k for k in inputs if k not in (self.memory_key, "stop")]
        if len(keys) != 1:
            raise ValueError(f"MemHubMemory: one input key expected, got {keys}; set input_key")
        return str(inputs[keys[0]])

    def _search_args(self) -> dict[str, Any]:
        return search_kwargs(
            user_id=self.user_id,
            app_id=self.app_id,
            agent_id=self.agent_id,
            limit=self.limit,
            groups=self.groups,
        )

    def _variables(self, block: str) -> dict[str, Any]:
        turns = self._turns if self.include_session else []
        if self.return_messages:
            return {
                self.memory_key: ([SystemMessage(content=block)] if block else []) + list(turns)
            }
        transcript = get_buffer_string(
            turns, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix
        )
        return {self.memory_key: "\n\n".join(part for part in (block, transcript) if part)}

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query = self._input(inputs).strip()
        block = (
            render(
                self._memhub.search_sync(query, **self._search_args()), self.groups, self.template
            )
            if query
            else ""
        )
        return self._variables(block)

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query = self._input(inputs).strip()
        block = (
            render(
                await self._memhub.search(query, **self._search_args()), self.groups, self.template
            )
            if query
            else ""
        )
        return self._variables(block)

    # -- save -------------------------------------------------------------------------

    def _output(self, outputs: dict[str, Any]) -> str:
        if self.output_key is not None:
            return str(outputs[self.output_key])
        if len(outputs) == 1:
            return str(next(iter(outputs.values())))
        if "output" in outputs:
            return str(outputs["output"])
        raise ValueError(f"MemHubMemory: got output keys {list(outputs)}; set output_key")

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        self._turns += [
            HumanMessage(content=self._input(inputs)),
            AIMessage(content=self._output(outputs)),
        ]

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        self.save_context(inputs, outputs)  # buffering only: no I/O to await

    # -- session boundary -------------------------------------------------------------

    def _pending(self) -> list[dict[str, str]]:
        roles = {"human": "user", "ai": "assistant"}
        return [{"role": roles[m.type], "content": m.text} for m in self._turns if m.text.strip()]

    def _scope(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "app_id": self.app_id,
            "agent_id": self.agent_id,
            "session_id": self.session_id,
        }

    def end_session(self) -> WriteResult | None:
        """Add the buffered session to memhub and start a new one; ``None`` if nothing was said."""
        pending = self._pending()
        result = self._memhub.add_sync(pending, **self._scope()) if pending else None
        self._turns = []
        return result

    async def aend_session(self) -> WriteResult | None:
        """Async :meth:`end_session`."""
        pending = self._pending()
        result = await self._memhub.add(pending, **self._scope()) if pending else None
        self._turns = []
        return result

    def clear(self) -> None:
        """End the session: what was said is added to memhub, then the buffer is emptied."""
        self.end_session()

    async def aclear(self) -> None:
        await self.aend_session()
