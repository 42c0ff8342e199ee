"""``MemoryService``: one engine over one store, shared by every tenant of the server.

Qdrant Edge allows one process per store, and the engine serialises writes with
one lock, so the server keeps exactly one ``Engine``. Each request gets a light
``MemoryClient`` over it whose default scope is the tenant of its API key (and
nothing inferred from the server's own working directory).
"""

from __future__ import annotations

import asyncio
from typing import Any

from memhub import MemoryClient, Settings, cpu
from memhub.client import build_embedder, build_store
from memhub.embed.base import Embedder
from memhub.engine.core import Engine
from memhub.providers.factory import build_extractor, build_judge
from memhub.scope import Scope
from memhub.store.base import MemoryStore

# Worker processes for the rules over long requests (``memhub.cpu``); 0: threads.
WORKER_PROCESSES = 2


class MemoryService:
    """The store, embedder and models of a server, opened once.

    Args:
        settings: the server's settings (``storage_dir``, ``qdrant_url``, keys, ...).
        store / embed / llm / jev: injected parts, as for ``MemoryClient``.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        store: MemoryStore | None = None,
        embed: Embedder | None = None,
        llm: Any = None,
        jev: Any = None,
    ) -> None:
        self.settings = settings
        self.engine = Engine(store or build_store(settings), embed or build_embedder(settings))
        # Built once: an OpenAI-compatible model keeps one connection pool for all requests.
        self._extractor = build_extractor(settings, llm)
        self._judge = build_judge(settings, jev, llm)
        self._tenants: dict[str, Settings] = {}
        self._lock = asyncio.Lock()

    async def open(self) -> None:
        """Open the store (raises ``StoreLockedError`` if another process holds it).

        The rules over a long add run in worker processes from then on, so one tenant's
        1 MiB add does not hold the GIL that every other request needs (``memhub.cpu``).
        """
        async with self._lock:
            cpu.use_processes(WORKER_PROCESSES)
            await self.engine.open()

    async def close(self) -> None:
        async with self._lock:
            await self.engine.close()

    async def client(self, tenant: str, **defaults: str | None) -> MemoryClient:
        """A client for one request: ``tenant``'s, with ``defaults`` (e.g. ``repository``) as its
        scope.
        """
        if not self.engine.is_open:
            await self.open()
        settings = self._tenants.get(tenant)
        if settings is None:
            settings = self._tenants[tenant] = self.settings.model_copy(update={"tenant": tenant})
        scope = Scope(tenant=tenant, app_id=settings.default_app_id).with_(**defaults)
        return MemoryClient(
            settings=settings, llm=self._extractor, jev=self._judge, engine=self.engine, scope=scope
        )
