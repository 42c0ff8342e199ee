"""``MemoryClient``: the async SDK. Every other door wraps this."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from memhub.config import Settings
from memhub.embed.base import Embedder
from memhub.engine import hmg
from memhub.engine.core import Engine
from memhub.models import (
    CorrectResult,
    GovernResult,
    HandoffResult,
    HistoryResult,
    MemorizeResult,
    RecallResult,
    SessionContext,
    Stats,
)
from memhub.scope import Scope, git_scope
from memhub.store.base import MemoryStore


def build_store(settings: Settings) -> MemoryStore:
    if settings.qdrant_url:
        from memhub.store.server import QdrantServerStore

        return QdrantServerStore(settings.qdrant_url, api_key=settings.secret("qdrant_api_key"),
                                 prefix=settings.collection_prefix)  # fmt: skip
    from memhub.store.edge import EdgeStore

    return EdgeStore(settings.storage_dir)


def build_embedder(settings: Settings) -> Embedder:
    if settings.embed_api_key:
        from memhub.embed.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            settings.embed_model, settings.embed_dimensions, api_key=settings.secret("embed_api_key"),
            base_url=settings.embed_base_url,
            max_chars=int(settings.embed_max_tokens * settings.embed_chars_per_token),
        )  # fmt: skip
    from memhub.embed.e5 import E5Embedder

    return E5Embedder()


class MemoryClient:
    """Long-term memory for an agent, async.

    Example:
        >>> async with MemoryClient(storage_dir="./.memhub_data") as client:
        ...     r = await client.memorize("项目用 PostgreSQL 16 做主数据库，不用 MongoDB")
        ...     hits = await client.recall("数据库选型")

    Args:
        mode: ``"system1"`` (default) or ``"dual"`` (adds ``digest()`` of L3 items).
        storage_dir: the embedded store's folder (default ``./.memhub_data``).
        settings: a ``Settings``; constructor arguments win over it.
        embed / llm / jev: injected providers (skip key checks).
        store: an injected ``MemoryStore`` (e.g. ``QdrantServerStore``).
        cwd: where to infer the git scope from (default: the working directory).
    """

    def __init__(
        self,
        mode: str | None = None,
        storage_dir: str | Path | None = None,
        settings: Settings | None = None,
        embed: Embedder | None = None,
        llm: Any = None,
        jev: Any = None,
        *,
        store: MemoryStore | None = None,
        cwd: str | Path | None = None,
    ) -> None:
        overrides = {"mode": mode, "storage_dir": str(storage_dir) if storage_dir else None}
        if settings is None:
            settings = Settings.load(**overrides)
        elif any(v is not None for v in overrides.values()):
            settings = settings.model_copy(update={k: v for k, v in overrides.items() if v is not None})
        self.settings = settings
        self.engine = Engine(store or build_store(settings), embed or build_embedder(settings))
        self.llm, self.jev = llm, jev
        self.scope = Scope(tenant=settings.tenant, app_id=settings.default_app_id).with_(**git_scope(cwd))
        self._open_lock = asyncio.Lock()

    async def open(self) -> MemoryClient:
        """Open the store (done on first use; call it to surface errors early)."""
        async with self._open_lock:
            await self.engine.open()
        return self

    async def aclose(self) -> None:
        await self.engine.close()

    async def __aenter__(self) -> MemoryClient:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _ready(self, **scope: str | None) -> Scope:
        if not self.engine._opened:
            await self.open()
        return self.scope.with_(**scope)

    # -- HMG operations ---------------------------------------------------------------

    async def memorize(
        self,
        content: str,
        *,
        epistemic: str | None = None,
        polarity: str | None = None,
        source: str = "agent",
        metadata: dict | None = None,
        **scope: str | None,
    ) -> MemorizeResult:
        """Store one fact. Secrets are redacted first; a duplicate in the scope is a ``no_op``.

        Scope keys (``user_id``, ``app_id``, ``agent_id``, ``session_id``, ``workspace``,
        ``repository``, ``branch``, ``tenant``) default to the client's, which come from git.
        """
        s = await self._ready(**scope)
        return await hmg.memorize(self.engine, content, s, epistemic=epistemic, polarity=polarity,
                                  source=source, metadata=metadata)  # fmt: skip

    async def recall(self, query: str, *, limit: int = 10, **scope: str | None) -> RecallResult:
        """Hybrid search (dense + BM25, RRF) over current, visible memories of the scope.

        Pass ``repository="*"`` (or ``branch="*"``) to widen the search across checkouts.
        """
        s = await self._ready(**scope)
        return await hmg.recall(self.engine, query, s, limit=limit)

    async def correct(
        self, target_atom: str, action: str, reason: str, new_content: str | None = None, **scope: str | None
    ) -> CorrectResult:
        """Change what is believed: ``replace``, ``negate``, ``confirm_actual``, ``confirm_necessary``, ``demote``."""
        s = await self._ready(**scope)
        return await hmg.correct(self.engine, target_atom, action, reason, s, new_content)

    async def govern(
        self, target_atom: str, action: str, reason: str, lesson_content: str | None = None, **scope: str | None
    ) -> GovernResult:
        """Change whether it may exist: ``quarantine``/``release``, ``seal``, ``tombstone``, ``derive_lesson``."""
        s = await self._ready(**scope)
        return await hmg.govern(self.engine, target_atom, action, reason, s, lesson_content)

    async def handoff(self, summary: str, **scope: str | None) -> HandoffResult:
        """Leave a summary for the next session of this scope."""
        s = await self._ready(**scope)
        return await hmg.handoff(self.engine, summary, s)

    async def session_context(self, **scope: str | None) -> SessionContext:
        """The latest handoff first, then the scope's ``necessary`` constraints."""
        s = await self._ready(**scope)
        return await hmg.session_context(self.engine, s)

    async def history(self, atom_id: str, **scope: str | None) -> HistoryResult:
        """The audit trail of one memory: current state, relations and every step with its reason."""
        s = await self._ready(**scope)
        return await hmg.history(self.engine, atom_id, s)

    async def stats(self, **scope: str | None) -> Stats:
        s = await self._ready(**scope)
        return await hmg.stats(self.engine, s.tenant)

    async def purge(self) -> None:
        """Rewrite the store so that sealed and tombstoned content is physically gone from disk."""
        await self._ready()
        await hmg.purge(self.engine)
