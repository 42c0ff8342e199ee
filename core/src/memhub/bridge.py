"""One memhub client, callable from both the sync and the async side of a framework.

Frameworks call their memory from sync code (``agent.invoke``) and async code
(``agent.ainvoke``) alike, while the user holds either a ``MemoryClient`` (async)
or a ``SyncMemoryClient`` (blocking, on its own loop thread). ``MemHub`` makes
either usable from both sides without blocking an event loop:

- ``MemoryClient``: awaited directly on the caller's loop; a sync call runs the
  coroutine on one private loop thread and waits for it.
- ``SyncMemoryClient``: a sync call goes straight through; an async call is
  scheduled on the client's own loop and awaited, so the caller's loop never blocks.

It also renders a search into the prompt block every adapter injects. Every memhub
framework adapter is built on this module; it is public so that adapters for other
frameworks can be too.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from memhub._cjk import HAN_CHAR
from memhub.api import ClientAPI
from memhub.models import ConversationResult, MemoryItem, SearchResult, WriteResult
from memhub.retrieval.formatter import format_memories
from memhub.sync import SyncFace

T = TypeVar("T")

CHAT_GROUPS = ("profile", "proactive", "normal")
CHAT_ROLES = ("user", "assistant")
ALL_GROUPS = (*CHAT_GROUPS, "procedures", "derived")
# Memories keep the user's words, and "I" in a system prompt reads as the assistant.
_PREAMBLE = {
    "en": 'Long-term memory about this user ("I" and "we" in it are the user; use when relevant):',
    "zh": "以下是与用户相关的长期记忆（其中的“我”“我们”指用户），回答时可参考：",
}


class _LoopThread:
    """A daemon thread running one event loop, for sync calls into an async client."""

    _lock = threading.Lock()
    _instance: _LoopThread | None = None

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="memhub-adapter", daemon=True
        )
        self.thread.start()

    @classmethod
    def get(cls) -> _LoopThread:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


Client = ClientAPI | SyncFace
"""What an adapter takes: an async client (``MemoryClient``, ``RemoteClient``) or a blocking
one (``SyncMemoryClient``, ``SyncRemoteClient``)."""


class MemHub:
    """A memhub client seen from both sides: ``await hub.search(...)`` and ``hub.search_sync(...)``.

    Args:
        client: an async client (:class:`memhub.api.ClientAPI`), a blocking one
            (:class:`memhub.sync_face.SyncFace`) or a ``MemHub``.
    """

    def __init__(self, client: Client | MemHub) -> None:
        if isinstance(client, MemHub):
            client = client.client
        if not isinstance(client, SyncFace) and not inspect.iscoroutinefunction(
            getattr(client, "search", None)
        ):
            raise TypeError(
                f"expected a memhub MemoryClient or SyncMemoryClient, got {type(client).__name__}"
            )
        self.client: Client = client
        self.is_async = not isinstance(client, SyncFace)

    # -- the calls adapters make -----------------------------------------------------

    async def call(self, operation: Callable[[ClientAPI], Coroutine[Any, Any, T]]) -> T:
        """One call on the async client, awaited: ``await hub.call(lambda api:
        api.delete(memory_id, user_id=...))``. A blocking client's call is scheduled on its
        own loop and awaited, so the caller's loop never blocks."""
        client = self.client
        if isinstance(client, SyncFace):
            return await asyncio.wrap_future(client.submit(operation(client.async_client)))
        return await operation(client)

    def call_sync(self, operation: Callable[[ClientAPI], Coroutine[Any, Any, T]]) -> T:
        """One call on the async client, from sync code (``hub.call_sync(lambda api: ...)``):
        on the blocking client's own loop, or an async client's on one private loop thread
        (from async code too: a framework's sync API called in a notebook or an async test)."""
        client = self.client
        if isinstance(client, SyncFace):
            return client.submit(operation(client.async_client)).result()
        return _LoopThread.get().run(operation(client))

    async def search(self, query: str, **kwargs: Any) -> SearchResult:
        return await self.call(lambda api: api.search(query, **kwargs))

    def search_sync(self, query: str, **kwargs: Any) -> SearchResult:
        return self.call_sync(lambda api: api.search(query, **kwargs))

    async def add(self, messages: list[dict[str, Any]], **kwargs: Any) -> WriteResult:
        return await self.call(lambda api: api.add(messages=messages, **_drop_none(kwargs)))

    def add_sync(self, messages: list[dict[str, Any]], **kwargs: Any) -> WriteResult:
        return self.call_sync(lambda api: api.add(messages=messages, **_drop_none(kwargs)))

    async def search_conversation(self, query: str, **kwargs: Any) -> ConversationResult:
        return await self.call(lambda api: api.search_conversation(query, **kwargs))


def _drop_none(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if v is not None}


def search_kwargs(
    *, user_id: str, app_id: str | None, agent_id: str | None, limit: int, groups: Sequence[str]
) -> dict[str, Any]:
    """Arguments of ``client.search`` for one scope and the groups wanted."""
    unknown = set(groups) - set(ALL_GROUPS)
    if unknown:
        raise ValueError(f"unknown memory groups {sorted(unknown)}; choose from {list(ALL_GROUPS)}")
    return {
        "user_id": user_id,
        "app_ids": [app_id] if app_id else None,
        "agent_id": agent_id,
        "limit": limit,
        "procedure_limit": min(limit, 50) if "procedures" in groups else 0,
        "derived_context_limit": min(limit, 50) if "derived" in groups else 0,
    }


def selected(result: SearchResult, groups: Sequence[str]) -> dict[str, list[MemoryItem]]:
    """The wanted groups of a search, in memhub's group order."""
    return {
        name: list(getattr(result.memories, name) or []) for name in ALL_GROUPS if name in groups
    }


def chat_turns(
    messages: Sequence[dict[str, Any]], ids: Sequence[str | None]
) -> list[dict[str, Any]]:
    """The user and assistant turns of OpenAI-style ``messages``, each with its framework id.

    System and tool messages are dropped: the host's prompt is not the user's memory,
    and tool output is never stored. Assistant tool calls stay, so memhub can recognise
    a coding session. ``ids`` (one per message, ``None`` for none) travel as ``id``.
    """
    out = []
    for message, message_id in zip(messages, ids, strict=True):
        if message.get("role") not in CHAT_ROLES:
            continue
        if message_id:
            message["id"] = message_id
        out.append(message)
    return out


def has_text(message: Mapping[str, Any]) -> bool:
    """Whether an OpenAI-style message has any non-blank text (string or text parts)."""
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    return any(
        isinstance(p, Mapping) and p.get("type") == "text" and str(p.get("text", "")).strip()
        for p in content or []
    )


def render(result: SearchResult, groups: Sequence[str], template: str | None = None) -> str:
    """The prompt block for a search: a one-line preamble and ``format_memories``; ``""`` if empty.

    Args:
        template: ``str.format`` template with ``{memories}``; by default a preamble
            in the language of the memories (English or Chinese).
    """
    block = format_memories(selected(result, groups))
    if not block:
        return ""
    if template is not None:
        return template.format(memories=block)
    language = "zh" if HAN_CHAR.search(block.split("\n", 1)[0]) else "en"
    return f"{_PREAMBLE[language]}\n{block}"
