"""``MemHubMemory``: a LlamaIndex ``BaseMemory`` that adds every turn to memhub."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.memory import BaseMemory, Memory
from pydantic import SkipValidation

from memhub.bridge import CHAT_GROUPS, Client, MemHub
from memhub.models import WriteResult
from memhub_llamaindex._messages import is_answer, to_memhub_messages
from memhub_llamaindex.block import MemHubMemoryBlock


class MemHubMemory(BaseMemory):
    """Long-term memory for chat engines and agents: recall every read, add every turn.

    Wraps an inner ``Memory`` (the short-term chat buffer) that carries a
    :class:`MemHubMemoryBlock`, so every ``get``/``aget`` recalls memhub memories
    for the latest user message. Messages put here are buffered and added to memhub
    with one ``client.add(messages=...)`` when a turn completes (an assistant answer
    via ``put``/``aput``, or the end of ``put_messages``/``aput_messages``) with
    ``add_every="turn"``, or only at :meth:`end_session` with ``add_every="session"``
    (one extraction per session, the quickstart's advice for long sessions).
    ``reset()`` ends the session first: what was said is added, then the buffer is emptied.

    Works with ``SimpleChatEngine``, ``CondensePlusContextChatEngine`` and agents
    such as ``FunctionAgent`` (``agent.run(msg, memory=memory)``).

    Example:
        >>> memory = MemHubMemory.from_defaults(client=client, user_id="alice", session_id="s1")
        >>> engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
        >>> engine.chat("我下周去杭州出差")
        >>> memory.end_session()
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: SkipValidation[Client] = Field(exclude=True)
    user_id: str
    app_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    add_every: Literal["turn", "session"] = "turn"
    memory: Memory = Field(
        default_factory=lambda data: Memory.from_defaults(session_id=data.get("session_id")),
        description="the short-term memory that is read from (carries the memhub block); "
        "by default a fresh ``Memory`` for the session, as ``from_defaults`` makes",
    )

    _memhub: MemHub = PrivateAttr()
    _pending: list[ChatMessage] = PrivateAttr(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "MemHubMemory"

    # BaseMemory.from_defaults takes only **kwargs; this one names what it needs (a client)
    @classmethod
    def from_defaults(  # type: ignore[override]
        cls,
        client: Client,
        user_id: str,
        *,
        app_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        memory: Memory | None = None,
        add_every: Literal["turn", "session"] = "turn",
        limit: int = 10,
        groups: Sequence[str] = CHAT_GROUPS,
        template: str | None = None,
        **memory_kwargs: Any,
    ) -> MemHubMemory:
        """Build the inner ``Memory`` (or use ``memory``) and make sure it recalls from memhub.

        Args:
            client: a ``MemoryClient`` or ``SyncMemoryClient``.
            user_id / app_id / agent_id / session_id: the memhub scope; ``session_id``
                is also the inner ``Memory``'s session.
            memory: an existing ``Memory``; a ``MemHubMemoryBlock`` is added to it if it has none.
            add_every: ``"turn"`` (default) or ``"session"``.
            limit / groups / template: what the block recalls and how it is rendered.
            **memory_kwargs: passed to ``Memory.from_defaults`` (``token_limit``, ``insert_method``,
            …).
        """
        if memory is None:
            memory = Memory.from_defaults(session_id=session_id, **memory_kwargs)
        elif memory_kwargs:
            raise TypeError(
                f"pass either memory= or Memory options, not both: {sorted(memory_kwargs)}"
            )
        block = {"limit": limit, "groups": tuple(groups), "template": template}
        scope = {"user_id": user_id, "app_id": app_id, "agent_id": agent_id}
        _ensure_block(memory, client=client, session_id=session_id, **scope, **block)
        return cls(
            client=client,
            user_id=user_id,
            app_id=app_id,
            agent_id=agent_id,
            session_id=session_id or memory.session_id,
            add_every=add_every,
            memory=memory,
        )

    def model_post_init(self, context: Any, /) -> None:
        self._memhub = MemHub(self.client)
        if self.session_id is None:
            self.session_id = self.memory.session_id
        _ensure_block(self.memory, client=self.client, **self._scope())  # not via from_defaults
        for block in self.memory.memory_blocks:
            if isinstance(block, MemHubMemoryBlock):
                block.accept_short_term_memory = False  # this class adds every turn itself

    # -- reads go to the inner memory ---------------------------------------------------

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        return self.memory.get(input=input, **kwargs)

    async def aget(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        return await self.memory.aget(input=input, **kwargs)

    def get_all(self) -> list[ChatMessage]:
        return self.memory.get_all()

    async def aget_all(self) -> list[ChatMessage]:
        return await self.memory.aget_all()

    def set(self, messages: list[ChatMessage]) -> None:
        """Replace the short-term history (earlier history is not added to memhub again)."""
        self.memory.set(messages)

    async def aset(self, messages: list[ChatMessage]) -> None:
        await self.memory.aset(messages)

    # -- writes are buffered, then added per turn or per session -------------------------

    def _turn_done(self, messages: Sequence[ChatMessage]) -> bool:
        self._pending.extend(messages)
        return self.add_every == "turn" and any(is_answer(m) for m in messages)

    def _take_pending(self) -> list[dict[str, Any]]:
        converted = to_memhub_messages(self._pending)
        self._pending = []
        return converted if any(m["content"] for m in converted) else []

    def _scope(self) -> dict[str, Any]:
        return {
            "user_id": self.user_id,
            "app_id": self.app_id,
            "agent_id": self.agent_id,
            "session_id": self.session_id,
        }

    def put(self, message: ChatMessage) -> None:
        self.memory.put(message)
        if self._turn_done([message]):
            self.end_session()

    async def aput(self, message: ChatMessage) -> None:
        await self.memory.aput(message)
        if self._turn_done([message]):
            await self.aend_session()

    def put_messages(self, messages: list[ChatMessage]) -> None:
        self.memory.put_messages(messages)
        if self._turn_done(messages):
            self.end_session()

    async def aput_messages(self, messages: list[ChatMessage]) -> None:
        await self.memory.aput_messages(messages)
        if self._turn_done(messages):
            await self.aend_session()

    def end_session(self) -> WriteResult | None:
        """Add what was said since the last add to memhub; ``None`` if nothing was."""
        pending = self._take_pending()
        return self._memhub.add_sync(pending, **self._scope()) if pending else None

    async def aend_session(self) -> WriteResult | None:
        """Async :meth:`end_session`."""
        pending = self._take_pending()
        return await self._memhub.add(pending, **self._scope()) if pending else None

    def reset(self) -> None:
        """End the session (add what is pending), then empty the short-term memory."""
        self.end_session()
        self.memory.reset()

    async def areset(self) -> None:
        await self.aend_session()
        await self.memory.areset()


def _ensure_block(memory: Memory, **block: Any) -> None:
    """Give ``memory`` a :class:`MemHubMemoryBlock` unless it has one, so every read recalls."""
    if not any(isinstance(b, MemHubMemoryBlock) for b in memory.memory_blocks):
        memory.memory_blocks.append(MemHubMemoryBlock(**block))
