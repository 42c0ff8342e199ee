"""The memory namespace of ``MemHubStore``: ``(*prefix, user_id)`` read and written as memhub
memory, not as plain items.

LangGraph's docs and LangMem read a user's long-term memory with
``runtime.store.search(("memories", user_id), query=...)`` and write it with
``store.put(("memories", user_id), key, {"content": ...})`` (LangGraph's docs say ``"data"``).
Kept as plain items, those writes would never be extracted or reconciled: a changed city
would leave the old one on show, and a question or a "thanks" would be shown as a memory.
Here a search is memhub's reconciled search of that user, and a put of text or messages
goes through ``add`` (extraction, the write judge), so the same node code gets memhub's
memory. Every other namespace stays a plain key-value item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import GetOp, Item, PutOp, SearchItem, SearchOp

from memhub.api import ClientAPI
from memhub.bridge import CHAT_GROUPS, CHAT_ROLES
from memhub.errors import InvalidInputError, NotFoundError
from memhub.ids import from_point_id, is_memory_id, to_point_id
from memhub.models import MemoryItem
from memhub_langgraph import _items as it

TEXT_KEYS = ("content", "data", "text", "memory")
"""The value keys a put may hold its text under: LangMem's, LangGraph's docs', and two more."""
_MAX_SEARCH = 200


class MemoryNamespace:
    """Routes the ops on ``(*prefix, user_id)`` namespaces to a memhub client's memory.

    Args:
        client: the async memhub client (``MemoryClient`` or ``RemoteClient``).
        prefix: the namespace prefix; ``None`` turns the memory namespace off.
    """

    def __init__(self, client: ClientAPI, prefix: Sequence[str] | None) -> None:
        if prefix is not None and (
            isinstance(prefix, str) or not all(isinstance(p, str) and p for p in prefix)
        ):
            raise ValueError(
                f"memory_namespace must be a tuple of non-empty strings, e.g. ('memories',), "
                f"or None; got {prefix!r}"
            )
        self.client = client
        self.prefix = tuple(prefix) if prefix is not None else None

    def user_of(self, namespace: Sequence[str]) -> str | None:
        """The user id when ``namespace`` is ``(*prefix, user_id)``, else ``None``."""
        if self.prefix is None or len(namespace) != len(self.prefix) + 1:
            return None
        if tuple(namespace[: len(self.prefix)]) != self.prefix:
            return None
        return namespace[-1]

    async def search(self, op: SearchOp, user_id: str) -> list[SearchItem]:
        """memhub's search of the user (``query``) or their current memories, newest first."""
        want = op.offset + op.limit
        if op.query:
            # Filtering happens after the search, so ask for more than a page when filtering;
            # memhub's search returns at most 200.
            limit = min(max(want * (4 if op.filter else 1), 1), _MAX_SEARCH)
            found = await self.client.search(op.query, user_id=user_id, limit=limit)
            memories = [m for group in CHAT_GROUPS for m in getattr(found.memories, group)]
            memories.sort(key=lambda m: -(m.score or 0.0))
        else:
            memories = await self.client.list(user_id=user_id)
        hits = [(m, _value(m)) for m in memories]
        hits = [(m, v) for m, v in hits if it.matches_filter(v, op.filter)]
        namespace = tuple(op.namespace_prefix)
        return [
            _search_item(namespace, m, v, m.score if op.query else None)
            for m, v in hits[op.offset : want]
        ]

    async def get(self, op: GetOp, user_id: str) -> Item | None:
        """The user's current memory of id ``key`` (a fact or profile item), else ``None``."""
        memory = await self._current(op.key, user_id)
        if memory is None:
            return None
        return _item(tuple(op.namespace), memory, _value(memory))

    async def put(self, op: PutOp, user_id: str) -> None:
        """A put of text or messages is ``add``; of ``None`` a delete of that memory.

        A key that names one of the user's current memories replaces it with the new text
        (``update``: the caller said which memory changed, as LangMem's update does); any
        other key is only the caller's handle and is not kept, since memhub decides which
        memories the words become (see ``WriteResult.memory_ids``).
        """
        current = await self._current(op.key, user_id)
        if op.value is None:
            if current is not None:
                await self.client.delete(current.id, user_id=user_id)
            return
        messages, text = _words(op.value)
        if text is not None and current is not None:
            await self.client.update(current.id, text, user_id=user_id)
        elif text is not None:
            await self.client.add(messages=[{"role": "user", "content": text}], user_id=user_id)
        else:
            await self.client.add(messages=messages, user_id=user_id)

    async def _current(self, key: str, user_id: str) -> MemoryItem | None:
        memory_id = _memory_id(key)
        if memory_id is None:
            return None
        try:
            memory = await self.client.get(memory_id, user_id=user_id)
        except (NotFoundError, InvalidInputError):  # not a memhub id, or not this user's
            return None
        if memory.layer == "raw" or memory.status != "active":
            return None
        return memory


def check_put(op: PutOp) -> None:
    """Raise a clear ``ValueError`` for a value the memory namespace cannot write, before any
    op of the batch is applied."""
    if op.value is not None:
        _words(op.value)


def _words(value: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """``(messages, None)`` for ``{"messages": [...]}``, ``([], text)`` for a text value."""
    messages = value.get("messages")
    if messages is not None:
        return _messages(messages), None
    for key in TEXT_KEYS:
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            return [], text
    raise ValueError(
        "a put in the memory namespace takes text under one of "
        f"{list(TEXT_KEYS)} or a list of chat messages under 'messages'; got keys "
        f"{sorted(value)}. Use another namespace for plain key-value items."
    )


def _messages(messages: Any) -> list[dict[str, Any]]:
    if isinstance(messages, str) or not isinstance(messages, Sequence) or not messages:
        raise ValueError("'messages' must be a non-empty list of chat messages")
    out = []
    for message in messages:
        if isinstance(message, str):
            message = {"role": "user", "content": message}
        elif not isinstance(message, Mapping):
            from langchain_core.messages import convert_to_openai_messages

            message = convert_to_openai_messages(message)
        if message.get("role") not in (*CHAT_ROLES, "system", "tool"):
            raise ValueError(f"a message needs a role of {list(CHAT_ROLES)}: {message!r}")
        out.append(dict(message))
    return out


def _memory_id(key: str) -> str | None:
    """The memhub id a key names: a key is the memory's id as a UUID (LangMem's tools take
    only UUIDs) or as memhub's own ULID."""
    if is_memory_id(key):
        return key
    try:
        return from_point_id(key)
    except ValueError:
        return None


def _value(memory: MemoryItem) -> dict[str, Any]:
    return {
        "content": memory.content,
        "memory_id": memory.id,
        "data": memory.content,
        "layer": memory.layer,
        "occurred_at": memory.occurred_at,
    }


def _times(memory: MemoryItem) -> dict[str, datetime]:
    created = datetime.fromisoformat(memory.created_at)
    return {
        "created_at": created,
        "updated_at": datetime.fromisoformat(memory.updated_at) if memory.updated_at else created,
    }


def _item(namespace: tuple[str, ...], memory: MemoryItem, value: dict[str, Any]) -> Item:
    return Item(namespace=namespace, key=to_point_id(memory.id), value=value, **_times(memory))


def _search_item(
    namespace: tuple[str, ...], memory: MemoryItem, value: dict[str, Any], score: float | None
) -> SearchItem:
    return SearchItem(
        namespace=namespace, key=to_point_id(memory.id), value=value, score=score, **_times(memory)
    )
