"""``client.records``: the frameworks' own records beside the memories, through the client.

Framework adapters keep data of their own in the store: item records in ``memories``
(of layer ``item``/``item_text``, embedded like memories), and records in collections
of their own, which an adapter declares once (``register_collection``, from
``memhub.store.schema``) with their indexes and the key ``forget_user`` follows to find
an end user's records (``ErasedBy``). They reach them only through this API, never
through ``client.engine``, so an adapter works the same on a local store, through the
local hub and against a memhub server (``RemoteClient.records`` sends the same calls
over HTTP).

Every call stays inside the client's tenant: reads are narrowed to it, writes are
tagged with it, and records of another tenant can be neither read, overwritten
nor deleted. In ``memories`` only the item layers are reachable. Records written
before they carried a tenant belong to the default tenant ``local`` (``in_tenant``).

Where this process holds the store (Qdrant Edge), ``Records`` can do more than the API
above: ``writes`` counts the writes to a collection, and ``put_now``/``scroll_now`` run
on the caller's thread. ``RemoteRecords`` has none of them: an adapter asks
``isinstance(records, Records)`` first.

Example:
    >>> register_collection("notes", IndexSpec(keyword=("note_id",), hot=("tenant",)))
    >>> await client.records.put("notes", [StoredPoint(pid, {"note_id": "n1"})])
    >>> points, _ = await client.records.scroll("notes", Where(must=(Match("note_id", "n1"),)))
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memhub.engine.payload import ITEM_LAYERS, as_memory, as_stored
from memhub.errors import InvalidInputError
from memhub.store.base import Collection, Match, MatchAny, StoredPoint, Where
from memhub.store.edge import EdgeStore
from memhub.store.schema import (
    LEGACY_TENANT,
    ErasedBy,
    RecordCollection,
    in_tenant,
    register_collection,
    registered,
)

if TYPE_CHECKING:
    from memhub.api import ClientAPI
    from memhub.engine.core import Engine
    from memhub.scope import Scope

__all__ = [
    "ITEM_LAYERS",
    "ErasedBy",
    "RecordCollection",
    "Records",
    "in_tenant",
    "record_collection",
    "record_collections",
    "register_collection",
]


def record_collections() -> tuple[Collection, ...]:
    """Where records live: ``memories`` (the item layers) and every registered collection."""
    return ("memories", *registered())


class ServedClient(Protocol):
    """What ``Records`` needs of the client it serves (``memhub.MemoryClient``)."""

    @property
    def scope(self) -> Scope:
        """The client's default scope: its tenant is the records'."""
        ...

    @property
    def engine(self) -> Engine:
        """The engine whose store holds the records, when this process holds it."""
        ...

    @property
    def remote(self) -> ClientAPI | None:
        """The hub's client the calls go to instead, once ``open()`` found one."""
        ...

    async def open(self) -> object:
        """Reach the store (here or through the hub)."""
        ...


class Records:
    """The record API of one client (see the module docstring); reached as ``client.records``."""

    def __init__(self, client: ServedClient) -> None:
        self._client = client

    @property
    def tenant(self) -> str:
        return self._client.scope.tenant

    def writes(self, collection: Collection) -> int | None:
        """A count that grows with every write to ``collection`` by any client of this store
        (``forget_user`` included; counted as the write returns, failed or not: on the
        engine's loop, or on the caller's thread for ``put_now``) and with every opening of
        the store (``EdgeStore.changes``); ``None`` when other processes can write the
        records too (a Qdrant server, a store reached through the hub) or the store is
        closed.

        While it grows only by an adapter's own writes, what the adapter read and wrote is
        still what the store holds: an adapter may cache what it read on it. Reading it
        costs no call to the engine.
        """
        engine = self._client.engine
        store = engine.store
        if self._client.remote is not None or not engine.is_open:
            return None
        if not isinstance(store, EdgeStore):  # only Qdrant Edge is held by one process
            return None
        return store.changes(collection)

    # -- the API: each call runs on the engine's owner loop, or on the hub ---------------

    async def get(
        self, collection: Collection, ids: Sequence[str], *, with_vectors: bool = False
    ) -> list[StoredPoint]:
        """The records with these ids that exist and are the tenant's, in no particular order."""
        return await self._run("get", collection, list(ids), with_vectors=with_vectors)

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
        return await self._run(
            "scroll",
            collection,
            where,
            limit=limit,
            offset=offset,
            order_by=order_by,
            descending=descending,
        )

    async def count(self, collection: Collection, where: Where | None = None) -> int:
        return await self._run("count", collection, where)

    async def put(
        self, collection: Collection, points: Sequence[StoredPoint], *, only_if: Where | None = None
    ) -> None:
        """Insert or replace records as given (vectors included); ``only_if`` as
        ``MemoryStore.upsert``.
        """
        await self._run("put", collection, list(points), only_if=only_if)

    def put_now(
        self,
        collection: Collection,
        points: Sequence[StoredPoint],
        *,
        only_if: Where | None = None,
        counted: Callable[[], None] | None = None,
        wait: bool = True,
    ) -> bool:
        """``put`` on the calling thread: the write runs here (or on the store's worker, this
        thread waiting) without the two thread hand-offs to the engine's loop and back. Only
        where this process holds the store (where ``writes`` is not ``None``); ``False``,
        with nothing done, elsewhere: use ``put``. A caller on an event loop passes
        ``wait=False``: ``False`` too, nothing done, when the write would have to wait.

        ``counted``, after a write that succeeded, runs as it is counted in ``writes``, no
        other ``put_now`` counted in between: a cache of the caller's own writes stays exact.
        """
        store = self._client.engine.store
        if self.writes(collection) is None or not isinstance(store, EdgeStore):
            return False
        prepared, check = self._prepared(collection, points), self._refuse_others(collection)
        return store.upsert_now(
            collection, prepared, only_if=only_if, check=check, wait=wait, counted=counted
        )

    def scroll_now(
        self,
        collection: Collection,
        where: Where | None = None,
        *,
        limit: int = 256,
        order_by: str | None = None,
        descending: bool = False,
        wait: bool = True,
    ) -> list[StoredPoint] | None:
        """The first page of ``scroll`` read on the calling thread, as ``put_now`` writes:
        only where this process holds the store; ``None``, nothing read, elsewhere (use
        ``scroll``) and, with ``wait=False``, when the read would have to wait."""
        store = self._client.engine.store
        if self.writes(collection) is None or not isinstance(store, EdgeStore):
            return None
        page = store.scroll_now(
            collection,
            self._narrow(collection, where),
            limit=limit,
            order_by=order_by,
            descending=descending,
            wait=wait,
        )
        return None if page is None else page[0]

    async def insert(self, payloads: Sequence[dict[str, Any]], texts: Sequence[str | None]) -> None:
        """Store item records in ``memories``, each embedded from its text
        (``None``: no vectors).
        """
        await self._run("insert", list(payloads), list(texts))

    async def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        """Delete the tenant's records with these ids (others are left alone)."""
        await self._run("delete", collection, list(ids))

    async def search(
        self, query: str, where: Where, limit: int
    ) -> list[tuple[dict[str, Any], float]]:
        """Item records found by hybrid retrieval (dense + BM25, RRF), in that order, each
        scored by the cosine similarity of its vector to the query, clipped to [0, 1]."""
        return await self._run("search", query, where, limit)

    async def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if name in ("get", "delete"):
            _check_ids(args[1])
        client = self._client
        if client.remote is None and not client.engine.is_open:
            await client.open()
        remote = client.remote
        if remote is not None:
            return await client.engine.owner.call(getattr(remote.records, name)(*args, **kwargs))
        return await client.engine.owner.call(
            self._as_tenant(getattr(self, f"_{name}")(*args, **kwargs))
        )

    async def _as_tenant(self, coro: Any) -> Any:
        """``coro`` with its embeddings queued under the client's tenant (``embed._fair``)."""
        from memhub.embed._fair import caller

        token = caller.set(self.tenant)
        try:
            return await coro
        finally:
            caller.reset(token)

    # -- local implementation (on the owner loop) -----------------------------------------

    async def _get(
        self, collection: Collection, ids: list[str], *, with_vectors: bool
    ) -> list[StoredPoint]:
        _check_collection(collection)
        found = await self._client.engine.store.retrieve(collection, ids, with_vectors=with_vectors)
        return [p for p in found if self._owns(collection, p.payload)]

    async def _scroll(
        self, collection: Collection, where: Where | None, **kwargs: Any
    ) -> tuple[list[StoredPoint], str | None]:
        return await self._client.engine.store.scroll(
            collection, self._narrow(collection, where), **kwargs
        )

    async def _count(self, collection: Collection, where: Where | None) -> int:
        return await self._client.engine.store.count(collection, self._narrow(collection, where))

    async def _put(
        self, collection: Collection, points: list[StoredPoint], *, only_if: Where | None
    ) -> None:
        points = self._prepared(collection, points)
        await self._client.engine.store.upsert(
            collection, points, only_if=only_if, check=self._refuse_others(collection)
        )

    def _prepared(self, collection: Collection, points: Sequence[StoredPoint]) -> list[StoredPoint]:
        _check_collection(collection)  # also when there are no points to tag
        _check_ids([p.id for p in points])
        return [
            StoredPoint(p.id, self._tagged(collection, p.payload), p.dense, p.sparse)
            for p in points
        ]

    async def _insert(self, payloads: list[dict[str, Any]], texts: list[str | None]) -> None:
        from memhub.ids import to_point_id

        payloads = [self._tagged("memories", p) for p in payloads]
        await self._check_not_others("memories", [to_point_id(p["id"]) for p in payloads])
        # items take the memories insert path (vectors, access key), their own keys as is
        await self._client.engine.insert([as_memory(p) for p in payloads], texts)

    async def _delete(self, collection: Collection, ids: list[str]) -> None:
        mine = [p.id for p in await self._get(collection, ids, with_vectors=False)]
        await self._client.engine.store.delete(collection, mine)

    async def _search(
        self, query: str, where: Where, limit: int
    ) -> list[tuple[dict[str, Any], float]]:
        from memhub.engine.hmg import hybrid, query_vectors

        engine = self._client.engine
        where = self._narrow("memories", where)
        vectors = await query_vectors(engine, query)
        hits = await hybrid(engine, vectors, where, limit)
        ids = tuple(p["id"] for p, _ in hits)
        if not ids:
            return []
        near = await engine.store.dense_query(
            vectors[0], where.and_(MatchAny("id", ids)), limit=len(ids)
        )
        cosine = {h.point.payload["id"]: min(1.0, max(0.0, h.score)) for h in near}
        return [(as_stored(p), round(cosine.get(p["id"], 0.0), 4)) for p, _ in hits]

    # -- the tenant guard -------------------------------------------------------------------

    def _narrow(self, collection: Collection, where: Where | None) -> Where:
        _check_collection(collection)
        where = where or Where()
        if collection == "memories":
            return where.and_(Match("tenant", self.tenant), MatchAny("layer", ITEM_LAYERS))
        return where.and_(in_tenant(self.tenant))

    def _owns(self, collection: Collection, payload: dict[str, Any]) -> bool:
        tenant = payload.get("tenant")
        if collection == "memories":
            return tenant == self.tenant and payload.get("layer") in ITEM_LAYERS
        return tenant == self.tenant or (tenant is None and self.tenant == LEGACY_TENANT)

    def _tagged(self, collection: Collection, payload: dict[str, Any]) -> dict[str, Any]:
        _check_collection(collection)
        if collection == "memories" and payload.get("layer") not in ITEM_LAYERS:
            raise InvalidInputError(
                f"records in memories must be of layer {' or '.join(ITEM_LAYERS)}"
            )
        if payload.get("tenant", self.tenant) != self.tenant:
            raise InvalidInputError("a record cannot be written for another tenant")
        return {**payload, "tenant": self.tenant}

    async def _check_not_others(self, collection: Collection, ids: list[str]) -> None:
        self._refuse_others(collection)(await self._client.engine.store.retrieve(collection, ids))

    def _refuse_others(self, collection: Collection) -> Callable[[list[StoredPoint]], None]:
        """A check that refuses a write over another tenant's record (or a memory)."""

        def check(existing: list[StoredPoint]) -> None:
            if any(not self._owns(collection, p.payload) for p in existing):
                raise InvalidInputError(
                    "a record with this id belongs to another tenant or is not a record"
                )

        return check


def _check_ids(ids: list[str]) -> None:
    for point_id in ids:
        try:
            uuid.UUID(str(point_id))
        except ValueError:
            raise InvalidInputError(f"a record id is a UUID, not {str(point_id)[:60]!r}") from None


def record_collection(name: str) -> Collection:
    """The collection called ``name`` (as ``/v1/records`` names it), if records live there;
    else ``InvalidInputError``."""
    _check_collection(name)
    return name


def _check_collection(collection: str) -> None:
    if collection != "memories" and collection not in registered():
        raise InvalidInputError(
            f"records live in {', '.join(record_collections())}, not {collection!r}"
        )
