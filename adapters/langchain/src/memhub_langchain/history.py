"""``MemHubChatMessageHistory``: a LangChain chat history kept as memhub's raw turns."""

from __future__ import annotations

import uuid
from collections.abc import Coroutine, Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from memhub.api import ClientAPI
from memhub.bridge import Client, MemHub, has_text
from memhub.models import ConversationResult
from memhub_langchain._messages import to_memhub_messages


class MemHubChatMessageHistory(BaseChatMessageHistory):
    """One session's chat history, stored by memhub: what ``RunnableWithMessageHistory`` needs.

    ``messages`` are the session's raw turns (L0) in the order they were said;
    ``add_messages`` writes through ``client.add(messages=...)``, so memhub also
    extracts and reconciles facts from them (found by ``search`` in any later
    session); ``clear()`` archives the session's turns (kept for history, gone from
    reads; ``govern`` erases). System and tool messages are not stored, as
    everywhere in memhub.

    For existing ``RunnableWithMessageHistory`` code: LangChain deprecates it in favour of
    LangGraph's persistence, so new code should use ``MemHubMiddleware`` with
    ``create_agent(..., checkpointer=...)`` instead.

    Example:
        >>> chain = RunnableWithMessageHistory(
        ...     prompt | model,
        ...     lambda session_id: MemHubChatMessageHistory(client, "alice", session_id),
        ...     input_messages_key="question", history_messages_key="history",
        ... )
        >>> chain.invoke({"question": "I'm vegetarian"}, {"configurable": {"session_id": "s1"}})

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient`` (sync and async chains both work).
        user_id / session_id: whose conversation, and which session.
        app_id / agent_id: the memhub scope (default: the client's app).
    """

    def __init__(
        self,
        client: Client,
        user_id: str,
        session_id: str,
        *,
        app_id: str | None = None,
        agent_id: str | None = None,
    ) -> None:
        if not user_id or not session_id:
            raise ValueError("MemHubChatMessageHistory needs a user_id and a session_id")
        self.memhub = MemHub(client)
        self.user_id, self.session_id = user_id, session_id
        self.app_id, self.agent_id = app_id, agent_id

    def _read(self, api: ClientAPI) -> Coroutine[Any, Any, ConversationResult]:
        apps = [self.app_id] if self.app_id else None
        return api.conversation(
            user_id=self.user_id, session_id=self.session_id, app_ids=apps, agent_id=self.agent_id
        )

    async def _clear(self, api: ClientAPI) -> None:
        for turn in (await self._read(api)).turns:
            await api.delete(turn.id, user_id=self.user_id)

    def _write_args(self, messages: Sequence[BaseMessage]) -> dict[str, Any] | None:
        # Each message gets an id: memhub skips a message it already holds (same id and
        # text in the session), so two "yes" turns without ids would be one.
        ided = [m if m.id else m.model_copy(update={"id": uuid.uuid4().hex}) for m in messages]
        converted = [m for m in to_memhub_messages(ided) if has_text(m)]
        if not converted:
            return None
        scope = {"user_id": self.user_id, "session_id": self.session_id}
        return scope | {"messages": converted, "app_id": self.app_id, "agent_id": self.agent_id}

    # BaseChatMessageHistory declares ``messages`` an attribute; the store is read per access
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return _to_messages(self.memhub.call_sync(self._read))

    async def aget_messages(self) -> list[BaseMessage]:
        return _to_messages(await self.memhub.call(self._read))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        args = self._write_args(messages)
        if args is not None:
            self.memhub.add_sync(**args)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        args = self._write_args(messages)
        if args is not None:
            await self.memhub.add(**args)

    def clear(self) -> None:
        self.memhub.call_sync(self._clear)

    async def aclear(self) -> None:
        await self.memhub.call(self._clear)


def _to_messages(result: ConversationResult) -> list[BaseMessage]:
    kinds = {"user": HumanMessage, "assistant": AIMessage}
    return [
        kinds[t.role](content=t.content, id=t.message_id) for t in result.turns if t.role in kinds
    ]
