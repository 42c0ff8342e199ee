"""``SyncMemoryClient``: the same API for scripts, on one background event loop.

Each method submits the async client's coroutine to the engine's owner loop
(``memhub.engine.owner``) and waits for it, so sync and async callers of one
store, in any thread, meet on one loop. No logic lives here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from memhub import _transfer
from memhub.client import MemoryClient
from memhub.config import Settings
from memhub.embed.base import Embedder
from memhub.errors import UsageError
from memhub.models import (
    ConversationResult,
    CorrectResult,
    DigestResult,
    ExportResult,
    ForgetResult,
    GovernResult,
    HandoffResult,
    HistoryResult,
    ImportResult,
    MemorizeResult,
    MemoryItem,
    RecallResult,
    SearchResult,
    SessionContext,
    Stats,
    WriteResult,
)
from memhub.progress import Progress
from memhub.store.base import MemoryStore

T = TypeVar("T")


class SyncMemoryClient:
    """Blocking face of :class:`MemoryClient` (same constructor, same methods).

    Example:
        >>> with SyncMemoryClient(storage_dir="./.memhub_data") as client:
        ...     client.memorize("项目用 PostgreSQL 16 做主数据库")

    Inside a running event loop use ``MemoryClient`` with ``await``: this class
    raises ``UsageError`` there rather than deadlock.
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
        self._check_loop()
        self._client = MemoryClient(
            mode, storage_dir, settings, embed, llm, jev, store=store, cwd=cwd
        )
        self._owner = self._client.engine.owner
        self._closed = False
        try:
            self._run(self._client.open())
        except BaseException:
            self._closed = True
            self._shutdown()
            raise

    @property
    def settings(self) -> Settings:
        return self._client.settings

    @property
    def async_client(self) -> MemoryClient:
        """The async client behind this one; await its methods only through ``submit``."""
        return self._client

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coro`` (a call on ``async_client``) on the engine's owner loop.

        For code that already runs an event loop and holds a ``SyncMemoryClient``:
        ``await asyncio.wrap_future(client.submit(client.async_client.search(...)))``
        (or simply ``await client.async_client.search(...)``, which goes there too).
        """
        if self._closed:
            coro.close()
            raise UsageError("this SyncMemoryClient is closed")
        return self._owner.submit(coro)

    @staticmethod
    def _check_loop() -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        raise UsageError(
            "SyncMemoryClient cannot be used inside a running event loop; "
            "use MemoryClient and await its methods there"
        )

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            self._check_loop()
        except UsageError:
            coro.close()
            raise
        if self._closed:
            coro.close()
            raise UsageError("this SyncMemoryClient is closed")
        return self._owner.call_sync(coro)

    def _shutdown(self) -> None:
        # from this thread's own short loop: aclose waits for the owner and then stops it
        asyncio.run(self._client.aclose())

    def close(self) -> None:
        if not self._closed:
            self._check_loop()
            self._closed = True
            self._shutdown()

    def __enter__(self) -> SyncMemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- HMG operations: one line each ------------------------------------------------

    def memorize(
        self,
        content: str,
        *,
        epistemic: str | None = None,
        polarity: str | None = None,
        source: str = "agent",
        metadata: dict | None = None,
        **scope: str | None,
    ) -> MemorizeResult:
        return self._run(
            self._client.memorize(
                content,
                epistemic=epistemic,
                polarity=polarity,
                source=source,
                metadata=metadata,
                **scope,
            )
        )

    def recall(self, query: str, *, limit: int = 10, **scope: str | None) -> RecallResult:
        return self._run(self._client.recall(query, limit=limit, **scope))

    def correct(
        self,
        target_atom: str,
        action: str,
        reason: str,
        new_content: str | None = None,
        **scope: str | None,
    ) -> CorrectResult:
        return self._run(self._client.correct(target_atom, action, reason, new_content, **scope))

    def govern(
        self,
        target_atom: str,
        action: str,
        reason: str,
        lesson_content: str | None = None,
        **scope: str | None,
    ) -> GovernResult:
        return self._run(self._client.govern(target_atom, action, reason, lesson_content, **scope))

    def handoff(self, summary: str, **scope: str | None) -> HandoffResult:
        return self._run(self._client.handoff(summary, **scope))

    def session_context(self, **scope: str | None) -> SessionContext:
        return self._run(self._client.session_context(**scope))

    def history(self, atom_id: str, **scope: str | None) -> HistoryResult:
        return self._run(self._client.history(atom_id, **scope))

    def stats(self, **scope: str | None) -> Stats:
        return self._run(self._client.stats(**scope))

    def purge(self, *, progress: Progress | None = None) -> None:
        return self._run(self._client.purge(progress=progress))

    # -- MemHub operations: one line each -----------------------------------------------

    def add(
        self,
        content: str | None = None,
        messages: list[Any] | None = None,
        *,
        user_id: str,
        app_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        workspace_id: str | None = None,
        branch: str | None = None,
        metadata: dict[str, Any] | None = None,
        occurred_at: str | None = None,
    ) -> WriteResult:
        return self._run(
            self._client.add(
                content,
                messages,
                user_id=user_id,
                app_id=app_id,
                agent_id=agent_id,
                session_id=session_id,
                workspace_id=workspace_id,
                branch=branch,
                metadata=metadata,
                occurred_at=occurred_at,
            )
        )

    def search(
        self,
        query: str,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        procedure_limit: int = 0,
        procedure_min_score: float = 0.0,
        derived_context_limit: int | None = None,
        filters: dict[str, Any] | None = None,
    ) -> SearchResult:
        return self._run(
            self._client.search(
                query,
                user_id=user_id,
                app_ids=app_ids,
                agent_id=agent_id,
                session_id=session_id,
                limit=limit,
                procedure_limit=procedure_limit,
                procedure_min_score=procedure_min_score,
                derived_context_limit=derived_context_limit,
                filters=filters,
            )
        )

    def search_conversation(
        self,
        query: str,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
    ) -> ConversationResult:
        return self._run(
            self._client.search_conversation(
                query,
                user_id=user_id,
                app_ids=app_ids,
                agent_id=agent_id,
                session_id=session_id,
                limit=limit,
            )
        )

    def conversation(
        self,
        *,
        user_id: str,
        session_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        limit: int = 1000,
    ) -> ConversationResult:
        scope: dict[str, Any] = {"app_ids": app_ids, "agent_id": agent_id, "limit": limit}
        return self._run(self._client.conversation(user_id=user_id, session_id=session_id, **scope))

    def get(self, memory_id: str, *, user_id: str | None = None) -> MemoryItem:
        return self._run(self._client.get(memory_id, user_id=user_id))

    def list(
        self,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        include_history: bool = False,
        limit: int = 1000,
    ) -> list[MemoryItem]:
        return self._run(
            self._client.list(
                user_id=user_id,
                app_ids=app_ids,
                agent_id=agent_id,
                session_id=session_id,
                include_history=include_history,
                limit=limit,
            )
        )

    def update(self, memory_id: str, content: str, *, user_id: str | None = None) -> str:
        return self._run(self._client.update(memory_id, content, user_id=user_id))

    def delete(self, memory_id: str, *, user_id: str | None = None) -> None:
        return self._run(self._client.delete(memory_id, user_id=user_id))

    def forget_user(self, user_id: str, *, app_id: str | None = None) -> ForgetResult:
        return self._run(self._client.forget_user(user_id, app_id=app_id))

    def digest(self, *, mode: str | None = None) -> DigestResult:
        return self._run(self._client.digest(mode=mode))

    # -- moving memories: one call each ------------------------------------------------

    def export(
        self,
        dest: _transfer.Dest,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        include_vectors: bool = False,
        progress: Progress | None = None,
    ) -> ExportResult:
        return self._run(
            self._client.export(
                dest,
                user_id=user_id,
                app_id=app_id,
                include_vectors=include_vectors,
                progress=progress,
            )
        )

    def import_(
        self,
        source: _transfer.Source,
        *,
        from_: str = "memhub",
        strict: bool = False,
        include_deleted: bool = False,
        progress: Progress | None = None,
    ) -> ImportResult:
        return self._run(
            self._client.import_(
                source,
                from_=from_,
                strict=strict,
                include_deleted=include_deleted,
                progress=progress,
            )
        )
