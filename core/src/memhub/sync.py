"""``SyncMemoryClient``: the same API for scripts, on one background event loop.

Each operation is :class:`MemoryClient`'s own, made blocking by the face they share
(:class:`memhub.sync_face.SyncFace`): the async client's coroutine goes to the engine's
owner loop (``memhub.engine.owner``) and the call waits for it, so sync and async callers
of one store, in any thread, meet on one loop. No logic and no signature is written here;
``SyncRemoteClient`` (:mod:`memhub.remote`) is the same face over HTTP.
"""

from __future__ import annotations

import asyncio
from typing import Any

from memhub.client import MemoryClient
from memhub.config import Settings
from memhub.sync_face import SyncFace, blocking, constructor_of

__all__ = ["SyncFace", "SyncMemoryClient", "blocking", "constructor_of"]


class SyncMemoryClient(SyncFace):
    """Blocking face of :class:`MemoryClient` (same constructor, same methods).

    Example:
        >>> with SyncMemoryClient(storage_dir="./.memhub_data") as client:
        ...     client.memorize("项目用 PostgreSQL 16 做主数据库")

    Inside a running event loop use ``MemoryClient`` with ``await``: this class
    raises ``UsageError`` there rather than deadlock.
    """

    _client: MemoryClient

    @constructor_of(MemoryClient)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._check_loop()
        client = MemoryClient(*args, **kwargs)
        self._attach(client, client.engine.owner)

    @property
    def settings(self) -> Settings:
        return self._client.settings

    @property
    def async_client(self) -> MemoryClient:
        """The async client behind this one; await its methods only through ``submit``."""
        return self._client

    def _shutdown(self) -> None:
        # from this thread's own short loop: aclose waits for the owner and then stops it
        asyncio.run(self._client.aclose())
