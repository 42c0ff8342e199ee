"""``MemoryClient``: the async SDK. Every other door wraps this."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from memhub import _transfer
from memhub.config import Settings
from memhub.embed._fair import caller as embed_caller
from memhub.embed.base import Embedder
from memhub.engine import hmg, shared
from memhub.engine.core import Engine, acting_tenant
from memhub.engine.lifecycle import digest as digest_ops
from memhub.engine.lifecycle import erase
from memhub.engine.read import read
from memhub.engine.transfer import transfer
from memhub.engine.write import write
from memhub.errors import InvalidInputError, StoreLockedError, UsageError
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
from memhub.records import Records
from memhub.scope import ANY, Scope, check_id, checked, git_scope, recall_overrides
from memhub.store.base import MemoryStore

if TYPE_CHECKING:
    from memhub.remote import RemoteClient

_Op = TypeVar("_Op", bound=Callable[..., Any])


def build_store(settings: Settings) -> MemoryStore:
    if settings.qdrant_url:
        from memhub.store.server import QdrantServerStore

        return QdrantServerStore(
            settings.qdrant_url,
            api_key=settings.secret("qdrant_api_key"),
            prefix=settings.collection_prefix,
        )
    from memhub.store.edge import EdgeStore

    return EdgeStore(settings.storage_dir)


def build_embedder(settings: Settings) -> Embedder:
    if settings.embed_api_key:
        from memhub.embed.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            settings.embed_model,
            settings.embed_dimensions,
            api_key=settings.secret("embed_api_key"),
            base_url=settings.embed_base_url,
            max_tokens=settings.embed_max_tokens,
            chars_per_token=settings.embed_chars_per_token,
        )
    from memhub.embed.e5 import E5Embedder

    return E5Embedder(max_tokens=min(settings.embed_max_tokens, 512))


def _apps(app_ids: list[str] | None) -> list[str] | None:
    if app_ids is None:
        return None
    if not isinstance(app_ids, list | tuple):
        raise InvalidInputError("app_ids must be a list of app ids")
    return [check_id(a, "app_ids") for a in app_ids]


def _hub_aware(operation: _Op) -> _Op:
    """Run ``operation`` on the engine's owner loop, here or on the local hub when
    ``open`` found the store held by one (see ``memhub.engine.owner``).

    Embeddings made on the way are queued under the client's tenant (``embed._fair``);
    the context is set on the owner loop, where the operation runs.
    """

    async def dispatch(self: MemoryClient, args: tuple, kwargs: dict[str, Any]) -> Any:
        if self._remote is not None:
            return await getattr(self._remote, operation.__name__)(*args, **kwargs)
        tokens = embed_caller.set(self.scope.tenant), acting_tenant.set(self.scope.tenant)
        try:
            return await operation(self, *args, **kwargs)
        finally:
            embed_caller.reset(tokens[0])
            acting_tenant.reset(tokens[1])

    @functools.wraps(operation)
    async def run(self: MemoryClient, *args: Any, **kwargs: Any) -> Any:
        if self._remote is None and not self.engine._opened:
            await self.open()
        return await self.engine.owner.call(dispatch(self, args, kwargs))

    return cast(_Op, run)


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
        engine: an ``Engine`` shared with other clients (the REST service keeps one per
            store and a light client per tenant); its owner opens and closes it.
        scope: the default scope of every call; given, nothing is inferred from git.

    The local hub: Qdrant Edge allows one process per store. When another process
    holds this client's ``storage_dir`` and that process is a running hub
    (``memhub serve``, which writes ``<storage_dir>/hub.json``), ``open()`` connects
    to the hub instead of failing, and every method runs there through a
    :class:`memhub.remote.RemoteClient` with this client's default scope (so memories
    still carry the git checkout's repository and branch). The hub's own embedder and
    models are used then; injected ones are not. Without a live hub, ``open()``
    raises ``StoreLockedError`` naming the holder.
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
        engine: Engine | None = None,
        scope: Scope | None = None,
    ) -> None:
        overrides: dict[str, Any] = {
            "mode": mode,
            "storage_dir": str(storage_dir) if storage_dir else None,
        }
        if settings is None:
            settings = Settings.load(**overrides)
        elif any(v is not None for v in overrides.values()):
            settings = settings.model_copy(
                update={k: v for k, v in overrides.items() if v is not None}
            )
        self.settings = settings
        self._owns_engine = engine is None
        self._shared = engine is None and store is None and not settings.qdrant_url
        if self._shared:
            # one engine per store folder in this process (memhub.engine.shared)
            engine = shared.acquire(
                Path(settings.storage_dir), lambda: build_embedder(settings), embed
            )
        self.engine = engine or Engine(
            store or build_store(settings), embed or build_embedder(settings)
        )
        self._llm, self._jev = llm, jev
        self._roles: tuple | None = None
        if scope is None:
            # The checkout's repository and branch bound what is recalled; its folder does
            # not (two clones of one repository share their memories).
            inferred = {k: v for k, v in git_scope(cwd).items() if k != "workspace"}
            scope = Scope(tenant=settings.tenant, app_id=settings.default_app_id).with_(**inferred)
        self.scope = scope
        self._remote: RemoteClient | None = None
        self._closed = False
        self.records = Records(self)
        """Framework adapters' own records beside the memories (:mod:`memhub.records`)."""

    async def open(self) -> MemoryClient:
        """Open the store (done on first use; call it to surface errors early).

        A store held by a running local hub is reached through the hub (see the class docstring).
        """
        try:
            await self.engine.owner.call(self._open())
        except BaseException:
            await self.aclose()  # a client that cannot open holds nothing
            raise
        return self

    async def _open(self) -> None:
        async with self.engine.owner.lock("client-open"):
            if self._remote is None:
                try:
                    await self.engine.open()
                except StoreLockedError:
                    from memhub.hub import connect_hub

                    self._remote = await connect_hub(
                        getattr(self.engine.store, "path", None), self.scope
                    )
                    if self._remote is None:
                        raise

    async def aclose(self) -> None:
        """Close the client; the engine closes with the last client of its store folder."""
        if self._remote is not None:
            remote, self._remote = self._remote, None
            await self.engine.owner.call(remote.aclose())
        if self._closed or not self._owns_engine:
            return
        self._closed = True
        if not self._shared or shared.release(self.engine):
            await self.engine.close()

    def close(self) -> None:
        """Close the client from synchronous code (a script's end, a test's teardown).

        Inside async code, ``await client.aclose()`` (or ``async with``) instead: called
        there, ``close`` raises ``UsageError`` rather than block the running loop.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.aclose())
            return
        raise UsageError(
            "MemoryClient.close() was called inside a running event loop, which it would "
            "block; use `await client.aclose()` there"
        )

    async def __aenter__(self) -> MemoryClient:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _providers(self) -> tuple:
        """The extractor and judge, built on first use (no key checks for injected ones)."""
        if self._roles is None:
            self._roles = (
                build_extractor(self.settings, self._llm),
                build_judge(self.settings, self._jev, self._llm),
            )
        return self._roles

    async def _ready(self, **scope: str | None) -> Scope:
        if not self.engine._opened:
            await self.open()
        return self.scope.with_(**checked(**scope))

    async def _ready_user(self, **scope: str | None) -> Scope:
        """The MemHub face is user-centric: the client's checkout neither binds what
        ``add`` writes nor narrows what ``search`` reads; only explicit arguments do."""
        base = await self._ready()
        return base.with_(workspace=ANY, repository=ANY, branch=ANY).with_(**checked(**scope))

    async def _ready_by_id(self, user_id: str | None) -> Scope:
        """The MemHub calls on one memory name its user only: any app, any checkout."""
        return await self._ready_user(user_id=user_id, app_id=ANY)

    # -- HMG operations ---------------------------------------------------------------

    @_hub_aware
    async def memorize(
        self,
        /,
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
        return await hmg.memorize(
            self.engine,
            content,
            s,
            epistemic=epistemic,
            polarity=polarity,
            source=source,
            metadata=metadata,
        )

    @_hub_aware
    async def recall(
        self, /, query: str, *, limit: int = 10, as_of: str | None = None, **scope: str | None
    ) -> RecallResult:
        """Hybrid search (dense + BM25, RRF) over current, visible memories of the scope;
        ``as_of`` (ISO 8601) reads the memories that held then instead (see ``search``).

        Pass ``repository="*"`` to search every project, or another project's
        ``repository="owner/name"`` (any branch of it, unless ``branch`` is given), or
        ``branch="*"`` every branch of this one. An explicit ``workspace`` narrows to the
        memories stored with that workspace.
        """
        s = await self._ready(**recall_overrides(self.scope, **scope))
        return await hmg.recall(self.engine, query, s, limit=limit, as_of=as_of)

    @_hub_aware
    async def correct(
        self,
        /,
        target_atom: str,
        action: str,
        reason: str,
        new_content: str | None = None,
        **scope: str | None,
    ) -> CorrectResult:
        """Change what is believed: ``replace``, ``negate``, ``confirm_actual``,
        ``confirm_necessary``, ``demote``.
        """
        s = await self._ready(**scope)
        return await hmg.correct(self.engine, target_atom, action, reason, s, new_content)

    @_hub_aware
    async def govern(
        self,
        /,
        target_atom: str,
        action: str,
        reason: str,
        lesson_content: str | None = None,
        **scope: str | None,
    ) -> GovernResult:
        """Change whether it may exist: ``quarantine``/``release``, ``seal``, ``tombstone``,
        ``derive_lesson``.

        Sealing and tombstoning also reach the memory's lineage: the raw turns it was
        extracted from and every memory extracted or derived from it or from them.
        ``GovernResult.cascaded`` lists them; a lesson from ``derive_lesson`` stays.
        """
        s = await self._ready(**scope)
        return await hmg.govern(self.engine, target_atom, action, reason, s, lesson_content)

    @_hub_aware
    async def handoff(self, /, summary: str, **scope: str | None) -> HandoffResult:
        """Leave a summary for the next session of this scope."""
        s = await self._ready(**scope)
        return await hmg.handoff(self.engine, summary, s)

    @_hub_aware
    async def session_context(self, /, **scope: str | None) -> SessionContext:
        """The latest handoff first, then the scope's ``necessary`` constraints."""
        s = await self._ready(**scope)
        return await hmg.session_context(self.engine, s)

    @_hub_aware
    async def history(self, /, atom_id: str, **scope: str | None) -> HistoryResult:
        """The audit trail of one memory: current state, relations and every step
        with its reason.
        """
        s = await self._ready(**scope)
        return await hmg.history(self.engine, atom_id, s)

    @_hub_aware
    async def stats(self, /, **scope: str | None) -> Stats:
        """Counts for the tenant, or, given scope keys (``user_id="alice"``, ``repository=…``),
        for the memories stored with exactly those."""
        s = await self._ready(**scope)
        asked = {k: v for k, v in scope.items() if k != "tenant" and v is not None and v != ANY}
        return await hmg.stats(self.engine, s.tenant, asked)

    @_hub_aware
    async def purge(self, *, progress: Progress | None = None) -> None:
        """Rewrite the store so that sealed and tombstoned content is physically gone from disk.

        ``progress`` receives the count of records rewritten (``memhub.progress.bar()``)."""
        await self._ready()
        await hmg.purge(self.engine, progress)

    # -- MemHub operations ------------------------------------------------------------

    @_hub_aware
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
        """Write a statement (``content``) or a conversation (``messages``, OpenAI style).

        Keeps one L0 raw record per message, extracts facts (L1) and profile items
        (L2) and reconciles them with what is already known: see ``WriteResult.decisions``.
        """
        s = await self._ready_user(
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

    @_hub_aware
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
        """Current memories grouped ``profile`` / ``proactive`` / ``normal`` (+ ``procedures``,
        ``derived`` when asked).

        Every session of the user is searched; ``session_id`` narrows the search to that one.
        ``as_of`` (ISO 8601 date or date-time; a date is its midnight UTC) reads the memories
        whose valid time covers that instant, as they were then: a value replaced since is
        current as of an earlier date, and one that began later is not there.
        """
        s = await self._ready_user(user_id=user_id, agent_id=agent_id, session_id=session_id)
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

    @_hub_aware
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
        """Search the raw L0 turns (never governed text), to check what was actually said;
        ``as_of``: only the turns said by then."""
        s = await self._ready_user(user_id=user_id, agent_id=agent_id, session_id=session_id)
        apps = _apps(app_ids)
        return await read.search_conversation(
            self.engine, query, s, app_ids=apps, limit=limit, as_of=as_of
        )

    @_hub_aware
    async def conversation(
        self,
        *,
        user_id: str,
        session_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        limit: int = 1000,
    ) -> ConversationResult:
        """A session's raw turns (L0) in the order they were said, e.g. to rebuild a
        chat history.
        """
        s = await self._ready_user(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return await read.conversation(self.engine, s, app_ids=_apps(app_ids), limit=limit)

    @_hub_aware
    async def get(
        self, memory_id: str, *, user_id: str | None = None, as_of: str | None = None
    ) -> MemoryItem:
        """One memory by id; with ``user_id``, only if it is that user's (else not found).
        ``as_of``: the version of it that held then (not found when none did)."""
        s = await self._ready_by_id(user_id)
        return await read.get(self.engine, memory_id, s, as_of=as_of)

    @_hub_aware
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
        """A user's memories, newest first; ``include_history`` adds replaced and deleted versions.

        Every session of the user is listed; ``session_id`` narrows the list to that one.
        ``as_of``: the memories that held then, as they were (``include_history`` aside).
        """
        s = await self._ready_user(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return await read.list_memories(
            self.engine,
            s,
            app_ids=_apps(app_ids),
            include_history=include_history,
            limit=limit,
            as_of=as_of,
        )

    @_hub_aware
    async def update(self, memory_id: str, content: str, *, user_id: str | None = None) -> str:
        """Write a new version; returns its id (the old one stays in the evolution chain)."""
        s = await self._ready_by_id(user_id)
        return await read.update(self.engine, memory_id, content, s)

    @_hub_aware
    async def delete(self, memory_id: str, *, user_id: str | None = None) -> None:
        """Archive the current version (use ``govern`` to erase content)."""
        s = await self._ready_by_id(user_id)
        await read.delete(self.engine, memory_id, s)

    @_hub_aware
    async def forget_user(self, user_id: str, *, app_id: str | None = None) -> ForgetResult:
        """Erase everything about one end user of this tenant (the right to erasure).

        Every memory of ``user_id`` is tombstoned: every layer (raw turns, facts, profile,
        procedures, derived items, lessons, handoffs), every status (current, replaced,
        deleted) and exposure. The text is gone from every read at once (search, recall,
        list, get, history, over SDK, REST, CLI and MCP alike); only ids and times remain,
        each with an audit step whose reason is ``"forget_user"``, and the reasons given
        earlier to ``correct``/``govern`` for them (which may quote the text) are erased.
        LangGraph store items tagged with the user are deleted, and so are the user's
        LangGraph threads (``MemHubCheckpointer``: every checkpoint and pending write of a
        thread whose runs were for the user), and no pending digest runs for the user.
        Run ``purge()`` to remove the text from the files on disk too. Other users and
        tenants are not touched.

        Args:
            user_id: the user to forget.
            app_id: only that app's memories of the user; default: every app.

        Returns:
            How many records and threads were erased; a second call returns
            ``tombstoned=0, threads=0``.

        Example:
            >>> await client.forget_user("alice")
            ForgetResult(user_id='alice', tombstoned=12, threads=2)
        """
        s = await self._ready()
        return await erase.forget_user(self.engine, s.tenant, user_id, app_id=app_id)

    @_hub_aware
    async def digest(self, *, mode: str | None = None) -> DigestResult:
        """Dual mode: derive L3 patterns for every scope written since the last digest (once each).

        In ``system1`` (and without ``mode="dual"``) nothing is pending: ``processed`` is 0.
        """
        await self._ready()
        if (mode or self.settings.mode) != "dual":
            return DigestResult(processed=0)
        return await digest_ops.digest(
            self.engine, llm=self._digest_llm(), tenant=self.scope.tenant
        )

    # -- moving memories ----------------------------------------------------------------

    @_hub_aware
    async def export(
        self,
        dest: _transfer.Dest,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        include_vectors: bool = False,
        progress: Progress | None = None,
    ) -> ExportResult:
        """Every version of every memory of this tenant as JSON Lines
        (``memhub.engine.transfer.jsonl``).

        Each line carries status, exposure, epistemic level, scope, relations and the audit
        events; sealed and tombstoned memories carry no text (as ``history`` shows them).

        Args:
            dest: a file path (written whole, or left untouched if interrupted) or a text stream.
            user_id / app_id: only that user's / app's memories (tombstones keep neither).
            include_vectors: also the vectors, so a store with the same embedder reuses them.
            progress: receives the count (``memhub.progress.bar()`` draws a bar).

        Example:
            >>> await client.export("memories.jsonl", user_id="alice")
            ExportResult(exported=42, events=57, vectors=False)
        """
        s = await self._ready()
        with _transfer.writer(dest) as write_line:
            return await transfer.export(
                self.engine,
                write_line,
                s.tenant,
                user_id=user_id,
                app_id=app_id,
                include_vectors=include_vectors,
                progress=progress,
            )

    @_hub_aware
    async def import_(
        self,
        source: _transfer.Source,
        *,
        from_: str = "memhub",
        strict: bool = False,
        include_deleted: bool = False,
        progress: Progress | None = None,
    ) -> ImportResult:
        """Import an export (or a mem0 store) into this tenant; running it again adds nothing.

        Memories keep their ids, versions, chains and audit events (an id another tenant of
        the store holds is replaced by a fresh one, the same on every run, and so are the
        references to it; the answer does not tell); secrets are redacted on the way in;
        vectors are reused when the export names this store's embedder and made here (in
        batches) when not. An interrupted import resumes when run again.

        Args:
            source: an export file's path or its lines; with ``from_="mem0"``, a mem0 store's
                folder (its Qdrant ``collection`` folder and ``history.db``).
            strict: check every line first and change nothing if one is not a memory record;
                by default such a line is reported (``ImportResult.errors``) and skipped.
            include_deleted: mem0 only: also import the text of deleted memories (as archived).
            progress: receives the count (``memhub.progress.bar()`` draws a bar).

        Example:
            >>> await client.import_("memories.jsonl")
            ImportResult(imported=42, skipped=0, ...)
        """
        s = await self._ready()
        lines = _transfer.lines_of(
            source, from_, include_deleted=include_deleted, app_id=self.scope.app_id
        )
        if strict:
            transfer.validate(lines())
        return await transfer.import_lines(
            self.engine, lines(), s.tenant, total=lines.count(), progress=progress
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
