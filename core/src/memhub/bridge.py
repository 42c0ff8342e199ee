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
adapter (LangChain, LangGraph, LlamaIndex, Agentica) is built on this module; it is
public so that adapters for other frameworks can be too.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from memhub import MemoryClient
from memhub._cjk import HAN_CHAR
from memhub.models import ConversationResult, MemoryItem, SearchResult, WriteResult
from memhub.retrieval.formatter import format_memories
from memhub.sync import SyncFace

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

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()


class MemHub:
    """A memhub client seen from both sides: ``await hub.search(...)`` and ``hub.search_sync(...)``.

    Args:
        client: a ``MemoryClient``, a ``SyncMemoryClient`` or any object with the
            same methods (async or blocking).
    """

    def __init__(self, client: Any) -> None:
        self.client: Any
        if isinstance(client, MemHub):
            client = client.client
        if client is None or not hasattr(client, "search") or not hasattr(client, "add"):
            raise TypeError(
                f"expected a memhub MemoryClient or SyncMemoryClient, got {type(client).__name__}"
            )
        self.client = client
        self.is_async = isinstance(client, MemoryClient) or (
            not isinstance(client, SyncFace) and inspect.iscoroutinefunction(client.search)
        )

    def _submit(self, name: str, kwargs: dict[str, Any]) -> Future | None:
        """Schedule a call on a ``SyncMemoryClient``'s own loop (``None`` for other clients)."""
        submit = getattr(self.client, "submit", None)
        inner = getattr(self.client, "async_client", None)
        if submit is None or inner is None:
            return None
        return submit(getattr(inner, name)(**kwargs))

    async def _acall(self, name: str, /, **kwargs: Any) -> Any:
        if self.is_async:
            return await getattr(self.client, name)(**kwargs)
        future = self._submit(name, kwargs)
        if future is None:
            return await asyncio.to_thread(getattr(self.client, name), **kwargs)
        return await asyncio.wrap_future(future)

    def _call(self, name: str, /, **kwargs: Any) -> Any:
        if self.is_async:
            return _LoopThread.get().run(getattr(self.client, name)(**kwargs))
        if _in_running_loop():
            # A framework's sync API called from async code (a notebook, an async test):
            # the sync client refuses to run there, but its own loop thread can serve it.
            future = self._submit(name, kwargs)
            if future is not None:
                return future.result()
        return getattr(self.client, name)(**kwargs)

    # -- the calls adapters make -----------------------------------------------------

    async def call(self, name: str, /, **kwargs: Any) -> Any:
        """Any client method by name, awaited (e.g. ``await hub.call("delete", memory_id=...)``)."""
        return await self._acall(name, **kwargs)

    def call_sync(self, name: str, /, **kwargs: Any) -> Any:
        """Any client method by name, from sync code."""
        return self._call(name, **kwargs)

    async def search(self, query: str, **kwargs: Any) -> SearchResult:
        return await self._acall("search", query=query, **kwargs)

    def search_sync(self, query: str, **kwargs: Any) -> SearchResult:
        return self._call("search", query=query, **kwargs)

    async def add(self, messages: list[dict[str, Any]], **kwargs: Any) -> WriteResult:
        return await self._acall("add", messages=messages, **_drop_none(kwargs))

    def add_sync(self, messages: list[dict[str, Any]], **kwargs: Any) -> WriteResult:
        return self._call("add", messages=messages, **_drop_none(kwargs))

    async def search_conversation(self, query: str, **kwargs: Any) -> ConversationResult:
        return await self._acall("search_conversation", query=query, **kwargs)


def _in_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


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
