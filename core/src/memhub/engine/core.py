"""``Engine``: the one write/read core every door (SDK, CLI, REST, MCP, adapters) goes through.

It owns the store, the embedder and the BM25 encoder, and provides the small set
of primitives the operations are written with: insert, conditional update, the
audit log and the snapshot counter. The operations themselves live in
``memhub.engine.hmg`` (and, for the MemHub face, ``memhub.engine.write.write`` and ``.read``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Any, Final

from memhub import cpu
from memhub.embed.base import Embedder
from memhub.embed.bm25 import Bm25Encoder
from memhub.engine import audit
from memhub.engine.access import ACCESS_KEY, access_keys, owned
from memhub.engine.owner import Owner
from memhub.engine.payload import Event, Memory, ReplaceStep, as_event, as_memory, as_stored
from memhub.engine.records import now
from memhub.errors import ConflictError, EmbedderMismatchError, InvalidInputError, NotFoundError
from memhub.ids import from_point_id, to_point_id
from memhub.scope import Scope
from memhub.store.base import (
    IsEmpty,
    Match,
    MatchAny,
    MemoryStore,
    StoredPoint,
    Where,
    every,
    pages,
)

_META_ID = str(uuid.UUID(int=1))

acting_tenant: ContextVar[str | None] = ContextVar("memhub_acting_tenant", default=None)
"""The tenant an operation runs for (set by the client around each operation): ``bump``
counts the change under it, so a tenant's ``snapshot_version`` counts its own writes."""
# 2: memories carry the access key (memhub.engine.access); older stores are backfilled on open
SCHEMA_VERSION = 2
# What a pending new version carries until it is activated: its replace's audit step.
PENDING_STEP: Final = "replace_step"
# What ``open`` runs, in order, to finish multi-record operations a crash left pending
# (govern cascades, forget_user). The modules that own them add theirs when imported
# (``hmg``, ``lifecycle.erase``; ``memhub.client`` imports both): they are written on this
# module, so it imports neither.
RESUME_STEPS: list[Callable[[Engine], Awaitable[None]]] = []


def _json(value: Any) -> str:
    """``value`` as the store gives it back (JSON: tuples read back as lists)."""
    return json.dumps(value, sort_keys=True, default=str)


def with_access(payload: Memory) -> Memory:
    """``payload`` with its access key (``memhub.engine.access``), as every write stores it."""
    return {**payload, ACCESS_KEY: access_keys(payload)}


def _without_step(payload: Memory) -> Memory:
    without = payload.copy()
    without.pop(PENDING_STEP, None)
    return without


class Engine:
    """Shared primitives; see the module docstring.

    Args:
        store: an opened-on-demand ``MemoryStore`` (``EdgeStore`` or ``QdrantServerStore``).
        embedder: the dense embedder; its ``name`` and ``dim`` are pinned in the store.
        actor: who is recorded as ``by`` in the audit log for this client's changes.

    The engine lives on its ``owner`` loop (``memhub.engine.owner``): ``open`` and
    ``close`` run there, and so does every client operation. ``write_lock`` is taken
    only there, and never across a model call.
    """

    def __init__(
        self, store: MemoryStore, embedder: Embedder, *, actor: str = "agent", rrf_k: int = 2
    ):
        if not isinstance(embedder, Embedder):
            raise InvalidInputError(
                f"{type(embedder).__name__} is not an Embedder (memhub.embed.base.Embedder): it "
                f"needs name, dim, similarity_floor, embed_query and embed_passages"
            )
        self.store = store
        self.embedder = embedder
        self.bm25 = Bm25Encoder()
        self.actor = actor
        self.rrf_k = rrf_k
        self.owner = Owner()
        self._changes: dict[tuple[str | None, str | None], int] = {}
        self._snapshot = 0
        self._tenant_snapshots: dict[str, int] = {}
        self._opened = False

    @property
    def is_open(self) -> bool:
        """Whether the store is open (``open`` done, ``close`` not yet)."""
        return self._opened

    async def open(self) -> None:
        """Open the store and finish interrupted operations (idempotent, on the owner loop)."""
        if not self._opened:
            await self.owner.call(self._open())

    @property
    def write_lock(self) -> asyncio.Lock:
        """Serialises the apply step of writes; taken on the owner loop only."""
        return self.owner.lock("write")

    async def _open(self) -> None:
        async with self.owner.lock("open"):
            if self._opened:
                return
            await self.store.open(self.embedder.dim)
            try:
                schema = await self._check_meta()
                await self._recover()
                await self._migrate(schema)
                await self._resume()
            except BaseException:
                await self.store.close()
                raise
            self._opened = True

    async def close(self) -> None:
        """Close the store and stop the owner thread (a later ``open`` starts a new one)."""
        if not self.owner.running:
            return
        await self.owner.call(self._close())
        self.owner.stop()

    async def _close(self) -> None:
        if self._opened:
            self._opened = False
            await self.store.close()

    async def _check_meta(self) -> int:
        """Check the store was built with this embedder; return its schema version."""
        found = await self.store.retrieve("meta", [_META_ID])
        meta: dict[str, Any]
        if not found:
            meta = {
                "schema_version": SCHEMA_VERSION,
                "embedder": self.embedder.name,
                "dim": self.embedder.dim,
                "snapshot_version": 0,
            }
            await self.store.upsert("meta", [StoredPoint(_META_ID, meta)])
            return SCHEMA_VERSION
        meta = found[0].payload
        if meta.get("embedder") != self.embedder.name:
            raise EmbedderMismatchError(
                f"this store was built with the embedder {meta.get('embedder')!r}, not "
                f"{self.embedder.name!r}: vectors of different models cannot be compared. "
                "Configure the original embedder, or use a new storage_dir and re-import."
            )
        self._snapshot = int(meta.get("snapshot_version", 0))
        # A store from before per-tenant counters was a single-tenant ("local") store.
        self._tenant_snapshots = dict(meta.get("tenant_snapshots") or {"local": self._snapshot})
        return int(meta.get("schema_version", 1))

    async def _recover(self) -> None:
        """Finish or undo replaces interrupted between their two phases (see
        ``replace_version``).
        """
        for point in await every(self.store, "memories", Where(must=(Match("status", "pending"),))):
            pending = as_memory(point.payload)
            old_id = pending.get("supersedes")
            found = await self.store.retrieve("memories", [to_point_id(old_id)]) if old_id else []
            old = [as_memory(p.payload) for p in found]
            if old and old[0].get("superseded_by") == pending["id"]:
                if step := pending.get(PENDING_STEP):
                    await self.log_replace(old[0], pending["id"], step, once=True)
                full = (await self.store.retrieve("memories", [point.id], with_vectors=True))[0]
                active = with_access({**_without_step(as_memory(full.payload)), "status": "active"})
                full.payload = as_stored(active)
                await self.store.upsert(
                    "memories", [full]
                )  # an upsert replaces vectors too: keep them
            else:
                await self.store.delete("memories", [point.id])

    async def _resume(self) -> None:
        """Finish multi-record operations (govern cascades, forget_user) left pending."""
        for step in RESUME_STEPS:
            await step(self)

    async def _migrate(self, schema: int) -> None:
        """Bring a store written by an older memhub (``schema``) up to ``SCHEMA_VERSION``."""
        if schema >= SCHEMA_VERSION:
            return
        while True:  # 1 -> 2: every memory gets its access key
            batch, _ = await self.store.scroll(
                "memories", Where(must=(IsEmpty(ACCESS_KEY),)), limit=256
            )
            if not batch:
                break
            full = await self.store.retrieve("memories", [p.id for p in batch], with_vectors=True)
            await self.store.upsert(
                "memories",
                [
                    StoredPoint(
                        p.id, as_stored(with_access(as_memory(p.payload))), p.dense, p.sparse
                    )
                    for p in full
                ],
            )
        found = await self.store.retrieve("meta", [_META_ID])
        meta = {**found[0].payload, "schema_version": SCHEMA_VERSION}
        await self.store.upsert("meta", [StoredPoint(_META_ID, meta)])

    # -- snapshot counter -------------------------------------------------------

    @property
    def snapshot_version(self) -> int:
        """Changes applied to the whole store (every tenant's)."""
        return self._snapshot

    def tenant_snapshot(self, tenant: str) -> int:
        """Changes applied on behalf of ``tenant``: what its ``stats`` shows, so that one
        tenant of a shared server cannot count another's writes."""
        return self._tenant_snapshots.get(tenant, 0)

    async def bump(self, tenant: str | None = None) -> int:
        """Advance the snapshot counters once per applied change: the store's and the
        tenant's (``tenant``, else the ``acting_tenant`` of the operation)."""
        tenant = tenant or acting_tenant.get()
        found = await self.store.retrieve("meta", [_META_ID])
        meta = found[0].payload if found else {}
        self._snapshot = max(self._snapshot, int(meta.get("snapshot_version", 0))) + 1
        per_tenant = dict(meta.get("tenant_snapshots") or self._tenant_snapshots)
        if tenant:
            per_tenant[tenant] = int(per_tenant.get(tenant, 0)) + 1
        self._tenant_snapshots = per_tenant
        meta = {**meta, "snapshot_version": self._snapshot, "tenant_snapshots": per_tenant}
        await self.store.upsert("meta", [StoredPoint(_META_ID, meta)])
        return self._snapshot

    # -- records ----------------------------------------------------------------

    def changes(self, scope: Scope) -> int:
        """How many extracted memories of the scope's user this engine has written or
        changed: a write judged against an older count is judged again."""
        return self._changes.get((scope.tenant, scope.user_id), 0)

    def _changed(self, payloads: Iterable[Memory]) -> None:
        for payload in payloads:
            if payload.get("layer") != "raw":
                key = (payload.get("tenant"), payload.get("user_id"))
                self._changes[key] = self._changes.get(key, 0) + 1

    async def get(self, atom_id: str, tenant: str) -> Memory:
        found = [
            as_memory(p.payload)
            for p in await self.store.retrieve("memories", [to_point_id(atom_id)])
        ]
        if not found or found[0].get("tenant") != tenant or found[0].get("status") == "pending":
            raise NotFoundError(f"no memory with id {atom_id}")
        return found[0]

    async def get_owned(self, atom_id: str, scope: Scope) -> Memory:
        """The memory ``atom_id`` if ``scope`` may touch it (``access.owned``), else not found.

        Every by-id operation of every door reads through here: another tenant's, user's or
        app's memory gets the very answer of a missing id; another checkout's is reached.
        """
        payload = await self.get(atom_id, scope.tenant)
        if not owned(payload, scope):
            raise NotFoundError(f"no memory with id {atom_id}")
        return payload

    async def get_many(self, atom_ids: Sequence[str]) -> list[Memory]:
        found = await self.store.retrieve("memories", [to_point_id(i) for i in atom_ids])
        return [as_memory(p.payload) for p in found]

    async def insert(
        self,
        payloads: Sequence[Memory],
        vector_texts: Sequence[str | None],
        vectors: Sequence[list[float]] | None = None,
    ) -> None:
        """Store new memories; a ``None`` vector text stores the record without vectors.

        ``vectors`` (one per non-empty text) skips embedding when the caller has them already.
        """
        texts = [t for t in vector_texts if t]
        # BM25 terms of long text take milliseconds per 10k characters: off the owner loop
        # (``cpu``), beside the embedding, which runs on the model's own threads.
        terms = cpu.run(sum(map(len, texts)), self.bm25.documents, texts)
        embedded: Sequence[list[float]]
        if vectors is None and texts:
            embedded, sparse = await asyncio.gather(self.embedder.embed_passages(texts), terms)
        elif vectors is None:  # nothing to embed (raw-only records without text)
            embedded, sparse = [], await terms
        else:
            embedded, sparse = vectors, await terms
        dense, terms_of = iter(embedded), iter(sparse)
        points = []
        for payload, text in zip(payloads, vector_texts, strict=True):
            vec, bm25 = (next(dense), next(terms_of)) if text else (None, None)
            stored = as_stored(with_access(payload))
            points.append(StoredPoint(to_point_id(payload["id"]), stored, vec, bm25))
        await self.store.upsert("memories", points)
        self._changed(payloads)

    async def update(self, payload: Memory, patch: Memory, *, replace: bool = False) -> Memory:
        """Apply ``patch`` only if nobody changed the record since ``payload`` was read.

        The condition on ``rev`` is Qdrant's conditional update, so two writers on a
        shared server cannot both win; the loser gets ``ConflictError``.
        """
        rev = int(payload.get("rev", 0))
        new: Memory = patch.copy() if replace else {**payload, **patch}
        new.update({"rev": rev + 1, "updated_at": now()})
        new = with_access(new)
        pid = to_point_id(payload["id"])
        # One payload overwrite, conditional on ``rev``, then one read to learn whether it
        # applied (neither backend reports it). The vectors stay where they are: re-sending
        # them cost a read with vectors and a re-index of the point (bench/update_bench.py).
        await self.store.replace_payload(
            "memories", pid, as_stored(new), only_if=Where(must=(Match("rev", rev),))
        )
        after = await self.store.retrieve("memories", [pid])
        if not after:
            raise NotFoundError(f"no memory with id {payload['id']}")
        got = after[0].payload
        # rev and time alone do not tell two writers apart: processes sharing a server can
        # both write rev + 1 in the same millisecond. What this write changed must be there.
        if (
            got.get("rev") != rev + 1
            or got.get("updated_at") != new["updated_at"]
            or (not replace and any(_json(got.get(k)) != _json(new.get(k)) for k in patch))
        ):
            raise ConflictError(
                f"memory {payload['id']} was changed by another writer; read it again and retry"
            )
        self._changed([new])
        return new

    async def activate(self, pending: Memory) -> Memory:
        """Make a pending new version current (the last step of ``hmg.replace_version``)."""
        active: Memory = {**_without_step(pending), "status": "active"}
        return await self.update(pending, active, replace=True)

    # -- audit log ----------------------------------------------------------------

    async def log(self, atom_id: str, kind: str, action: str, *, tenant: str, **step: Any) -> None:
        """Append one step to the audit log: the ``event`` of these arguments (``before``,
        ``after``, ``reason``, ``related``), written at once. Events never hold memory content."""
        await self.store.upsert(
            "events", [self.event(atom_id, kind, action, tenant=tenant, **step)]
        )

    def event(
        self,
        atom_id: str,
        kind: str,
        action: str,
        *,
        tenant: str,
        before: Any = None,
        after: Any = None,
        reason: str | None = None,
        related: str | None = None,
    ) -> StoredPoint:
        """One audit step, not written yet: ``log`` writes one, a batch writes many at once.

        ``related``: the other memory of the step (the new version of a replace, ...)."""
        event: Event = {
            "atom_id": atom_id,
            "kind": kind,
            "action": action,
            "from": before,
            "to": after,
            "reason": reason,
            "by": self.actor,
            "at": now(),
            "tenant": tenant,
        }
        if related is not None:
            event["related"] = related
        return StoredPoint(str(uuid.uuid4()), as_stored(event))

    async def log_replace(
        self, old: Memory, new_id: str, step: ReplaceStep, *, once: bool = False
    ) -> None:
        """The audit steps of a replace, on the old version and the new one.

        ``once``: skip them if they are there already (a recovery after a crash that
        happened after the steps were logged).
        """
        if once and any(e.get("related") == new_id for e in await self.events(old["id"])):
            return
        action, common = step["action"], {"tenant": old["tenant"], "reason": step["reason"]}
        before = step["before"]
        await self.log(
            old["id"], "status", action, before=before, after="superseded", related=new_id, **common
        )
        await self.log(new_id, "status", action, after="active", related=old["id"], **common)

    async def erase_reasons(
        self, about: Sequence[str], placeholder: str, *, near: Sequence[str] = ()
    ) -> None:
        """Replace the reasons of the audit steps on the memories ``about``, and of the steps
        on the ``near`` ones that name one of them (``related``); the steps themselves stay.
        A bundle of steps (``memhub.engine.audit``) is written again with its steps changed."""
        targets = set(about)
        ids = tuple(dict.fromkeys([*about, *near]))
        for start in range(0, len(ids), 256):
            where = Where(must=(MatchAny("atom_id", ids[start : start + 256]),))
            async for page in pages(self.store, "events", where):
                rewritten = [
                    changed
                    for p in page
                    if (changed := audit.with_reason(p, placeholder, targets)) is not None
                ]
                if rewritten:
                    await self.store.upsert("events", rewritten)

    async def events(self, atom_id: str) -> list[Event]:
        """The audit steps of ``atom_id``, oldest first (as stored: without their ids)."""
        points = await every(self.store, "events", Where(must=(Match("atom_id", atom_id),)))
        found = audit.steps(points, {atom_id})
        return sorted(
            (as_event({k: v for k, v in step.items() if k != "id"}) for step in found),
            key=lambda e: e["at"],
        )


def atom_id_of(point: StoredPoint) -> str:
    return point.payload.get("id") or from_point_id(point.id)
