"""``MemoryAPI``: memhub's API, typed once.

Every public operation, with its signature, its answer and its docs. Two backends
implement it: the engine in this process (:class:`memhub.local.LocalBackend`) and a
memhub REST service or the local hub over HTTP (:class:`memhub.remote.RemoteClient`).
:class:`memhub.MemoryClient` picks one at ``open()`` and delegates every operation to it;
the blocking face (:mod:`memhub.sync`), the REST routes and the MCP tools are derived from
or checked against this list (``memhub._conformance``, ``tests/integrations``).

``ClientAPI`` adds what an async client has beyond the operations (its default scope, the
record API, ``open`` and ``aclose``): what the framework adapters depend on. The record API
is typed here too (``RecordsAPI``), so that this module names no client.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, Self, cast

from memhub import _transfer
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
from memhub.scope import Scope
from memhub.store.base import Collection, StoredPoint, Where


class MemoryAPI(Protocol):
    """The operations (see the module docstring); each backend runs them its own way."""

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
        """Store one fact. Secrets are redacted first; a duplicate in the scope is a ``no_op``.

        Scope keys (``user_id``, ``app_id``, ``agent_id``, ``session_id``, ``workspace``,
        ``repository``, ``branch``, ``tenant``) default to the client's, which come from git.
        """
        ...

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
        ...

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
        ...

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
        ...

    async def handoff(self, /, summary: str, **scope: str | None) -> HandoffResult:
        """Leave a summary for the next session of this scope."""
        ...

    async def session_context(self, /, **scope: str | None) -> SessionContext:
        """The latest handoff first, then the scope's ``necessary`` constraints."""
        ...

    async def history(self, /, atom_id: str, **scope: str | None) -> HistoryResult:
        """The audit trail of one memory: current state, relations and every step
        with its reason.
        """
        ...

    async def stats(self, /, **scope: str | None) -> Stats:
        """Counts for the tenant, or, given scope keys (``user_id="alice"``, ``repository=…``),
        for the memories stored with exactly those."""
        ...

    async def purge(self, *, progress: Progress | None = None) -> None:
        """Rewrite the store so that sealed and tombstoned content is physically gone from disk.

        ``progress`` receives the count of records rewritten (``memhub.progress.bar()``)."""
        ...

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
        """Write a statement (``content``) or a conversation (``messages``, OpenAI style).

        Keeps one L0 raw record per message, extracts facts (L1) and profile items
        (L2) and reconciles them with what is already known: see ``WriteResult.decisions``.
        """
        ...

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
        ...

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
        ...

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
        ...

    async def get(
        self, memory_id: str, *, user_id: str | None = None, as_of: str | None = None
    ) -> MemoryItem:
        """One memory by id; with ``user_id``, only if it is that user's (else not found).
        ``as_of``: the version of it that held then (not found when none did)."""
        ...

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
        ...

    async def update(self, memory_id: str, content: str, *, user_id: str | None = None) -> str:
        """Write a new version; returns its id (the old one stays in the evolution chain)."""
        ...

    async def delete(self, memory_id: str, *, user_id: str | None = None) -> None:
        """Archive the current version (use ``govern`` to erase content)."""
        ...

    async def forget_user(self, user_id: str, *, app_id: str | None = None) -> ForgetResult:
        """Erase everything about one end user of this tenant (the right to erasure).

        Every memory of ``user_id`` is tombstoned: every layer (raw turns, facts, profile,
        procedures, derived items, lessons, handoffs), every status (current, replaced,
        deleted) and exposure. The text is gone from every read at once (search, recall,
        list, get, history, over SDK, REST, CLI and MCP alike); only ids and times remain,
        each with an audit step whose reason is ``"forget_user"``, and the reasons given
        earlier to ``correct``/``govern`` for them (which may quote the text) are erased.
        Adapters' store items tagged with the user are deleted, and so is every unit an
        adapter registered its records by (``memhub.records.register_collection``: a
        framework's saved conversation thread whose runs were for the user, every record of
        it), and no pending digest runs for the user.
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
        ...

    async def digest(self, *, mode: str | None = None) -> DigestResult:
        """Dual mode: derive L3 patterns for every scope written since the last digest (once each).

        In ``system1`` (and without ``mode="dual"``) nothing is pending: ``processed`` is 0.
        """
        ...

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
        ...

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
        ...


class RecordsAPI(Protocol):
    """The record API of an async client (``client.records``; see :mod:`memhub.records`):
    :class:`memhub.records.Records` in this process (or through the hub) and
    :class:`memhub.remote.RemoteRecords` over HTTP. What only a process holding the store
    can do (``writes``, ``put_now``, ``scroll_now``) is ``Records``'s alone: an adapter asks
    ``isinstance(records, Records)`` first."""

    @property
    def tenant(self) -> str:
        """The tenant every call stays inside."""
        ...

    async def get(
        self, collection: Collection, ids: Sequence[str], *, with_vectors: bool = False
    ) -> list[StoredPoint]:
        """The records with these ids that exist and are the tenant's, in no particular order."""
        ...

    async def scroll(
        self,
        collection: Collection,
        where: Where | None = None,
        *,
        limit: int = 256,
        offset: str | None = None,
        order_by: str | None = None,
        descending: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        """A page of the tenant's records matching ``where`` and the next offset (``None`` at the
        end).
        """
        ...

    async def count(self, collection: Collection, where: Where | None = None) -> int:
        """How many of the tenant's records match ``where``."""
        ...

    async def put(
        self, collection: Collection, points: Sequence[StoredPoint], *, only_if: Where | None = None
    ) -> None:
        """Insert or replace records as given (vectors included); ``only_if`` as
        ``MemoryStore.upsert``.
        """
        ...

    async def insert(self, payloads: Sequence[dict[str, Any]], texts: Sequence[str | None]) -> None:
        """Store item records in ``memories``, each embedded from its text
        (``None``: no vectors).
        """
        ...

    async def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        """Delete the tenant's records with these ids (others are left alone)."""
        ...

    async def search(
        self, query: str, where: Where, limit: int
    ) -> list[tuple[dict[str, Any], float]]:
        """Item records found by hybrid retrieval (dense + BM25, RRF), in that order, each
        scored by the cosine similarity of its vector to the query, clipped to [0, 1]."""
        ...


class ClientAPI(MemoryAPI, Protocol):
    """An async client: the operations, its default scope, its record API, ``open`` and
    ``aclose`` (``MemoryClient``, ``RemoteClient``)."""

    @property
    def scope(self) -> Scope:
        """The default scope of every call."""
        ...

    @property
    def records(self) -> RecordsAPI:
        """The frameworks' own records beside the memories (:mod:`memhub.records`)."""
        ...

    async def open(self) -> Self:
        """Reach the store (done on first use; call it to surface errors early)."""
        ...

    async def aclose(self) -> None:
        """Release what the client holds."""
        ...


def contract(pick: Callable[[MemoryAPI], Callable[..., Any]]) -> Callable[..., Any]:
    """The operation an accessor names (``lambda api: api.search``): ``MemoryAPI``'s own
    function, whose name, signature and docs a face derived from it takes. The faces take
    an accessor rather than a name, so that each call through them is type-checked."""
    return pick(cast(MemoryAPI, MemoryAPI))  # read on the class: the unbound function
