"""``MemHubMemoryBlock``: memhub as a long-term block of ``llama_index.core.memory.Memory``."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import SkipValidation

from memhub.bridge import CHAT_GROUPS, Client, MemHub, render, search_kwargs
from memhub_llamaindex._messages import latest_user_text, to_memhub_messages


class MemHubMemoryBlock(BaseMemoryBlock[str]):
    """Recall memhub memories for the latest user message; store what is flushed to it.

    ``Memory`` calls ``aget`` with the chat history on every read: the block searches
    with the latest user message and returns the formatted memories, which ``Memory``
    renders into the system message (or the latest user message, with
    ``insert_method=InsertMethod.USER``, which keeps the prompt prefix cacheable).

    ``Memory`` only writes to blocks when its short-term buffer overflows, so on its
    own this block stores old turns late and never stores a short session: use
    :class:`~memhub_llamaindex.MemHubMemory` to add every turn (it turns
    ``accept_short_term_memory`` off here so nothing is added twice).

    Example:
        >>> from llama_index.core.memory import Memory
        >>> memory = Memory.from_defaults(
        ...     session_id="s1", memory_blocks=[MemHubMemoryBlock(client=client, user_id="alice")]
        ... )

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient``.
        user_id / app_id / agent_id / session_id: the memhub scope (``session_id``
            defaults to the ``Memory``'s session).
        limit / groups / template: what is recalled and how it is rendered.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "memhub"
    description: str | None = "Long-term memories about the user, from memhub"
    client: SkipValidation[Client] = Field(exclude=True)
    user_id: str
    app_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    limit: int = Field(default=10, ge=1, le=200)
    groups: tuple[str, ...] = CHAT_GROUPS
    template: str | None = None

    _memhub: MemHub = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._memhub = MemHub(self.client)
        search_kwargs(
            user_id=self.user_id, app_id=None, agent_id=None, limit=self.limit, groups=self.groups
        )

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = latest_user_text(messages)
        if not query:
            return ""
        args = search_kwargs(
            user_id=self.user_id,
            app_id=self.app_id,
            agent_id=self.agent_id,
            limit=self.limit,
            groups=self.groups,
        )
        return render(await self._memhub.search(query, **args), self.groups, self.template)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        converted = to_memhub_messages(messages)
        if not any(m["content"] for m in converted):
            return
        session = self.session_id or next(
            (m.additional_kwargs.get("session_id") for m in messages), None
        )
        await self._memhub.add(
            converted,
            user_id=self.user_id,
            app_id=self.app_id,
            agent_id=self.agent_id,
            session_id=session,
        )
