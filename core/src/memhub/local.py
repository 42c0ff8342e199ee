"""``LocalBackend``: :class:`memhub.api.MemoryAPI` on the engine in this process.

What ``MemoryClient`` runs its operations on when ``open()`` opened the store itself (the
other backend is the local hub or a server, over HTTP: :class:`memhub.remote.RemoteClient`).
Each operation merges the call's scope into the client's (:func:`memhub.scope.call_scope`)
and runs the engine's operation (``memhub.engine.hmg``, ``write``, ``read``, ...); the
client has opened the store and runs it on the engine's owner loop. The operations' docs
are the contract's, in :mod:`memhub.api`.
"""

from __future__ import annotations

from typing import Any

from memhub import _transfer
from memhub.config import Settings
from memhub.engine import hmg
from memhub.engine.core import Engine
from memhub.engine.lifecycle import digest as digest_ops
from memhub.engine.lifecycle import erase
from memhub.engine.read import read
from memhub.engine.transfer import transfer
from memhub.engine.write import write
from memhub.errors import InvalidInputError
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
from memhub.providers.factory import build_extractor, build_judge
from memhub.providers.llm import LLM, OpenAICompatibleLLM
from memhub.providers.types import Extractor, Judge
from memhub.scope import ANY, Scope, call_scope, check_id, recall_overrides


def _apps(app_ids: list[str] | None) -> list[str] | None:
    if app_ids is None:
        return None
    if not isinstance(app_ids, list | tuple):
        raise InvalidInputError("app_ids must be a list of app ids")
    return [check_id(a, "app_ids") for a in app_ids]


class LocalBackend:
    """The operations on ``engine`` for a client with default scope ``scope``.

    Args:
        llm / jev: the client's injected model and judge (``None``: from ``settings``).
    """

    def __init__(
        self, engine: Engine, settings: Settings, scope: Scope, llm: Any = None, jev: Any = None
    ) -> None:
        self.engine, self.settings, self.scope = engine, settings, scope
        self._llm, self._jev = llm, jev
        self._roles: tuple[Extractor, Judge] | None = None

    def _providers(self) -> tuple[Extractor, Judge]:
        """The extractor and judge, built on first use (no key checks for injected ones)."""
        if self._roles is None:
            self._roles = (
                build_extractor(self.settings, self._llm),
                build_judge(self.settings, self._jev, self._llm),
            )
        return self._roles

    def _user_scope(self, **given: str | None) -> Scope:
        """A MemHub call's scope: user-centric (see :func:`memhub.scope.call_scope`)."""
        return call_scope(self.scope, given, user=True)

    def _by_id(self, user_id: str | None) -> Scope:
        """The MemHub calls on one memory name its user only: any app, any checkout."""
        return self._user_scope(user_id=user_id, app_id=ANY)

    # -- HMG operations ---------------------------------------------------------------

    async def memorize(
        self,
        /,
        content: str,
        *,
        epistemic: str | None = None,
        polarity: str | None = None,
        source: str = "agent",
        metadata: dict[str, Any] | None = None,
        **scope: str | None,
    ) -> MemorizeResult:
        s = call_scope(self.scope, scope)
        return await hmg.memorize(
            self.engine,
            content,
            s,
            epistemic=epistemic,
            polarity=polarity,
            source=source,
            metadata=metadata,
        )

    async def recall(
        self, /, query: str, *, limit: int = 10, as_of: str | None = None, **scope: str | None
    ) -> RecallResult:
        s = call_scope(self.scope, recall_overrides(self.scope, **scope))
        return await hmg.recall(self.engine, query, s, limit=limit, as_of=as_of)

    async def correct(
        self,
        /,
        target_atom: str,
        action: str,
        reason: str,
        new_content: str | None = None,
        **scope: str | None,
    ) -> CorrectResult:
        s = call_scope(self.scope, scope)
        return await hmg.correct(self.engine, target_atom, action, reason, s, new_content)

    async def govern(
        self,
        /,
        target_atom: str,
        action: str,
        reason: str,
        lesson_content: str | None = None,
        **scope: str | None,
    ) -> GovernResult:
        s = call_scope(self.scope, scope)
        return await hmg.govern(self.engine, target_atom, action, reason, s, lesson_content)

    async def handoff(self, /, summary: str, **scope: str | None) -> HandoffResult:
        return await hmg.handoff(self.engine, summary, call_scope(self.scope, scope))

    async def session_context(self, /, **scope: str | None) -> SessionContext:
        return await hmg.session_context(self.engine, call_scope(self.scope, scope))

    async def history(self, /, atom_id: str, **scope: str | None) -> HistoryResult:
        return await hmg.history(self.engine, atom_id, call_scope(self.scope, scope))

    async def stats(self, /, **scope: str | None) -> Stats:
        s = call_scope(self.scope, scope)
        asked = {k: v for k, v in scope.items() if k != "tenant" and v is not None and v != ANY}
        return await hmg.stats(self.engine, s.tenant, asked)

    async def purge(self, *, progress: Progress | None = None) -> None:
        await hmg.purge(self.engine, progress)

    # -- MemHub operations ------------------------------------------------------------

    async def add(
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
        s = self._user_scope(
            user_id=user_id,
            app_id=app_id,
            agent_id=agent_id,
            session_id=session_id,
            workspace=workspace_id,
            branch=branch,
        )
        extractor, judge = self._providers()
        return await write.add(
            self.engine,
            s,
            extractor=extractor,
            judge=judge,
            threshold=self.settings.reconcile_relation_threshold,
            content=content,
            messages=messages,
            metadata=metadata,
            occurred_at=occurred_at,
            dual=self.settings.mode == "dual",
            procedure_options=self._procedure_options(),
        )

    async def search(
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
        as_of: str | None = None,
    ) -> SearchResult:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        derived = (
            self.settings.derived_context_limit
            if derived_context_limit is None
            else derived_context_limit
        )
        return await read.search(
            self.engine,
            query,
            s,
            app_ids=_apps(app_ids),
            limit=limit,
            procedure_limit=procedure_limit,
            procedure_min_score=procedure_min_score,
            derived_context_limit=derived,
            filters=filters,
            as_of=as_of,
        )

    async def search_conversation(
        self,
        query: str,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        as_of: str | None = None,
    ) -> ConversationResult:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        apps = _apps(app_ids)
        return await read.search_conversation(
            self.engine, query, s, app_ids=apps, limit=limit, as_of=as_of
        )

    async def conversation(
        self,
        *,
        user_id: str,
        session_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        limit: int = 1000,
    ) -> ConversationResult:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return await read.conversation(self.engine, s, app_ids=_apps(app_ids), limit=limit)

    async def get(
        self, memory_id: str, *, user_id: str | None = None, as_of: str | None = None
    ) -> MemoryItem:
        return await read.get(self.engine, memory_id, self._by_id(user_id), as_of=as_of)

    async def list(
        self,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        include_history: bool = False,
        limit: int = 1000,
        as_of: str | None = None,
    ) -> list[MemoryItem]:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return await read.list_memories(
            self.engine,
            s,
            app_ids=_apps(app_ids),
            include_history=include_history,
            limit=limit,
            as_of=as_of,
        )

    async def update(self, memory_id: str, content: str, *, user_id: str | None = None) -> str:
        return await read.update(self.engine, memory_id, content, self._by_id(user_id))

    async def delete(self, memory_id: str, *, user_id: str | None = None) -> None:
        await read.delete(self.engine, memory_id, self._by_id(user_id))

    async def forget_user(self, user_id: str, *, app_id: str | None = None) -> ForgetResult:
        return await erase.forget_user(self.engine, self.scope.tenant, user_id, app_id=app_id)

    async def digest(self, *, mode: str | None = None) -> DigestResult:
        if (mode or self.settings.mode) != "dual":
            return DigestResult(processed=0)
        return await digest_ops.digest(
            self.engine, llm=self._digest_llm(), tenant=self.scope.tenant
        )

    # -- moving memories ----------------------------------------------------------------

    async def export(
        self,
        dest: _transfer.Dest,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        include_vectors: bool = False,
        progress: Progress | None = None,
    ) -> ExportResult:
        with _transfer.writer(dest) as write_line:
            return await transfer.export(
                self.engine,
                write_line,
                self.scope.tenant,
                user_id=user_id,
                app_id=app_id,
                include_vectors=include_vectors,
                progress=progress,
            )

    async def import_(
        self,
        source: _transfer.Source,
        *,
        from_: str = "memhub",
        strict: bool = False,
        include_deleted: bool = False,
        progress: Progress | None = None,
    ) -> ImportResult:
        lines = _transfer.lines_of(
            source, from_, include_deleted=include_deleted, app_id=self.scope.app_id
        )
        if strict:
            transfer.validate(lines())
        return await transfer.import_lines(
            self.engine, lines(), self.scope.tenant, total=lines.count(), progress=progress
        )

    def _procedure_options(self) -> dict[str, Any] | None:
        if not self.settings.procedure_enabled:
            return None
        return {"llm": self._digest_llm(), "max_chars": self.settings.procedure_source_max_chars}

    def _digest_llm(self) -> LLM | None:
        if isinstance(self._llm, LLM):  # an injected model, not an injected extractor
            return self._llm
        if self.settings.llm_api_key:
            return OpenAICompatibleLLM.from_settings(self.settings, "llm")
        return None
