"""The storage port: what the engine needs from a vector store, and nothing more.

Filters are described with the small neutral types below; each backend translates
them into its own client's models. Keeping the description here (pure data, no I/O)
lets both backends build the same queries, the way a SQL query builder works apart
from the code that runs it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Collection = str
"""A collection's name: the core's ``memories``, ``events``, ``meta``, or one an adapter
registered (``memhub.store.schema.register_collection``)."""

DENSE = "dense"
BM25 = "bm25"


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass
class StoredPoint:
    """One record as the store keeps it: point id (UUID string), payload and vectors."""

    id: str
    payload: dict[str, Any]
    dense: Sequence[float] | None = None
    sparse: SparseVector | None = None


@dataclass(frozen=True)
class Match:
    """``key`` equals ``value`` (or, for a list field, contains it)."""

    key: str
    value: str | int | bool


@dataclass(frozen=True)
class MatchAny:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class IsEmpty:
    """``key`` is missing, null or an empty list."""

    key: str


@dataclass(frozen=True)
class DateRange:
    key: str
    gte: str | None = None
    lte: str | None = None


@dataclass(frozen=True)
class HasVector:
    name: str


@dataclass(frozen=True)
class Where:
    """A boolean filter: all of ``must``, at least one of ``should`` (when given), none of
    ``must_not``.
    """

    must: tuple[Condition, ...] = ()
    should: tuple[Condition, ...] = ()
    must_not: tuple[Condition, ...] = ()

    def and_(self, *conditions: Condition) -> Where:
        return Where(self.must + tuple(conditions), self.should, self.must_not)


Condition = Match | MatchAny | IsEmpty | DateRange | HasVector | Where


@dataclass(frozen=True)
class IndexSpec:
    """Payload index declarations shared by both backends."""

    keyword: tuple[str, ...] = ()
    integer: tuple[str, ...] = ()
    datetime: tuple[str, ...] = ()
    boolean: tuple[str, ...] = ()
    hot: tuple[str, ...] = ()
    """Keyword keys every read filters on: each gets its own index on every backend."""
    tenant: str | None = None
    """The keyword key Qdrant stores points grouped by (``is_tenant``): a user's
    memories sit together on disk, so a filtered scan reads them in few pages."""
    optional: tuple[str, ...] = ()
    """Keyword keys most records lack: ``EdgeStore`` marks them when they hold a value,
    not when empty (``memhub.store.facets``)."""
    packed: tuple[str, ...] = ()
    """Keys no filter names: ``EdgeStore`` keeps them in one JSON string and refuses a
    filter on one (``memhub.store.facets``); a Qdrant server stores them as given."""
    marked: tuple[str, ...] = ()
    """Of ``datetime``, keys most records lack: ``EdgeStore`` builds no index of their values
    but marks the records that hold one, and checks a range on those only
    (``memhub.store.facets``); a Qdrant server indexes them as the other datetime keys."""


@dataclass
class ScoredPoint:
    point: StoredPoint
    score: float
    extra: dict[str, float] = field(default_factory=dict)


class PayloadForm(Protocol):
    """How a store writes one collection's payloads, for work done ahead of the write (an
    import lays its memories out in a worker process). Picklable and pure: no I/O."""

    def lay_out(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` as the store writes it."""

    def as_laid(self, laid: dict[str, Any]) -> dict[str, Any]:
        """What ``lay_out`` made (maybe pickled and back), marked so that ``upsert`` writes it
        as it is, while the collection is still in this form."""

    def read_back(self, laid: dict[str, Any]) -> dict[str, Any]:
        """The payload ``lay_out`` was given."""


@runtime_checkable
class MemoryStore(Protocol):
    """An async vector store with the core's three collections (memories, events, meta) and
    those adapters register (``memhub.store.schema``).

    ``memories`` carries a named dense vector ``dense`` and a sparse ``bm25`` vector
    (IDF modifier); the others are payload only. A store records the version of its layout
    and migrates an older one when it opens (``memhub.store._migrations``).
    """

    async def open(self, vector_size: int) -> None:
        """Create the collections if needed, or check they match ``vector_size``; migrate a
        store of an older layout, and refuse one newer than this code (``MemHubError``,
        nothing changed)."""

    def layout_version(self) -> int:
        """The layout version the open store is in (``memhub.store._migrations.LATEST``)."""

    def payload_form(self, collection: Collection) -> PayloadForm | None:
        """How the open store writes ``collection``'s payloads; ``None``: as given."""

    async def close(self) -> None: ...

    async def upsert(
        self,
        collection: Collection,
        points: Sequence[StoredPoint],
        *,
        only_if: Where | None = None,
        check: Callable[[list[StoredPoint]], None] | None = None,
    ) -> None:
        """Insert or replace points. With ``only_if``, an existing point is replaced only
        when it matches the filter (Qdrant's conditional update); new points are inserted.
        ``check`` is given the points that already exist with these ids (no vectors) before
        anything is written; what it raises refuses the whole write."""

    async def replace_payload(
        self,
        collection: Collection,
        point_id: str,
        payload: dict[str, Any],
        *,
        only_if: Where | None = None,
    ) -> None:
        """Replace the payload of one existing point and keep its vectors. With ``only_if``,
        only when the point matches the filter; a missing point is left missing."""

    async def retrieve(
        self,
        collection: Collection,
        ids: Sequence[str],
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        """The points with these ids that exist, in no particular order. Without
        ``with_payload`` their payloads are empty: which ids exist, for less."""

    async def delete(self, collection: Collection, ids: Sequence[str]) -> None: ...

    async def delete_vectors(self, ids: Sequence[str]) -> None:
        """Remove the dense and sparse vectors of ``memories`` points."""

    async def scroll(
        self,
        collection: Collection,
        where: Where | None = None,
        *,
        limit: int = 100,
        offset: str | None = None,
        order_by: str | None = None,
        descending: bool = False,
        with_vectors: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        """A page of points and the offset of the next page (``None`` at the end).
        With ``order_by`` (an indexed payload key) the order is by that key and
        ``offset`` is not supported; ``with_vectors`` also reads their vectors."""

    async def count(self, collection: Collection, where: Where | None = None) -> int: ...

    async def facet(
        self, collection: Collection, key: str, where: Where | None = None, *, limit: int = 100
    ) -> list[tuple[str | int | bool, int]]:
        """The ``limit`` most frequent values of ``key`` (an indexed keyword key) among the
        points matching ``where``, with their counts, most frequent first (ties by value).
        A backend may count approximately on large sets (``EdgeStore``: folded keys)."""

    async def hybrid_query(
        self,
        dense: list[float],
        sparse: SparseVector,
        where: Where | None,
        *,
        limit: int,
        prefetch_limit: int,
        rrf_k: int,
        weights: tuple[float, float] | None = None,
    ) -> list[ScoredPoint]:
        """Dense and BM25 candidates fused with reciprocal rank fusion (score = RRF).

        ``weights`` (dense, bm25) scale each source as Qdrant's weighted RRF does."""

    async def dense_query(
        self, dense: list[float], where: Where | None, *, limit: int
    ) -> list[ScoredPoint]:
        """Nearest neighbours by cosine similarity (score = cosine)."""

    async def sparse_query(
        self, sparse: SparseVector, where: Where | None, *, limit: int
    ) -> list[ScoredPoint]:
        """The best BM25 matches (score = BM25 with IDF); none for an empty ``sparse``."""

    async def compact(self, progress: Callable[[int], None] | None = None) -> None:
        """Rewrite storage so that deleted and overwritten payloads are physically gone.

        ``progress`` is called with the number of points rewritten, as they are (maybe
        from another thread)."""

    def bulk(self) -> AbstractAsyncContextManager[None]:
        """Many writes follow (an import): index them once when the block ends, not in passing."""

    async def prefetch(self, collection: Collection, *, vectors: bool = False) -> None:
        """A read of most of ``collection`` follows (an export): a store may read its files
        ahead, so the scroll does not wait on the disk page by page; ``vectors``: the scroll
        reads vectors too. Changes nothing any read returns."""


class Scrolls(Protocol):
    """Anything that pages through points: a ``MemoryStore``, or a client's ``records``."""

    async def scroll(
        self,
        collection: Collection,
        where: Where | None = None,
        *,
        limit: int = ...,
        offset: str | None = None,
    ) -> tuple[list[StoredPoint], str | None]: ...


async def pages(
    store: Scrolls,
    collection: Collection,
    where: Where | None = None,
    *,
    size: int = 256,
    with_vectors: bool = False,
) -> AsyncIterator[list[StoredPoint]]:
    """Every point of ``collection`` matching ``where``, a scroll page at a time.

    The next page is asked for after the caller is done with this one, so the caller
    may change the points it was given as long as they stay before the next offset.
    """
    offset = None
    while True:
        if with_vectors:  # a store's option; a client's records have no vectors to read
            assert isinstance(store, MemoryStore)
            page, offset = await store.scroll(
                collection, where, limit=size, offset=offset, with_vectors=True
            )
        else:
            page, offset = await store.scroll(collection, where, limit=size, offset=offset)
        if page:
            yield page
        if offset is None:
            return


async def every(
    store: Scrolls, collection: Collection, where: Where | None = None, *, size: int = 256
) -> list[StoredPoint]:
    """Every point of ``collection`` matching ``where``, however many: no silent cap."""
    return [point async for page in pages(store, collection, where, size=size) for point in page]
