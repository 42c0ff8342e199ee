"""``QdrantServerStore``: the scale-out backend, a Qdrant server or cluster through qdrant-client.

Many app processes can share one server: the collections, payloads and queries are
those of ``EdgeStore``, and conditional writes (``only_if``) are Qdrant's own
``update_filter``, so two writers cannot both win. ``url=":memory:"`` runs
qdrant-client's local mode, the test double for this path.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from importlib import metadata
from typing import Any, TypeVar, cast

from qdrant_client import AsyncQdrantClient, models
from qdrant_client.common.client_exceptions import QdrantException
from qdrant_client.common.version_check import is_compatible
from qdrant_client.http.exceptions import (
    ApiException,
    ResponseHandlingException,
    UnexpectedResponse,
)

from memhub.errors import EmbedderMismatchError, InvalidInputError, MemHubError
from memhub.store import _migrations
from memhub.store.base import (
    BM25,
    DENSE,
    Collection,
    Condition,
    DateRange,
    HasVector,
    IndexSpec,
    IsEmpty,
    Match,
    MatchAny,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    Where,
)
from memhub.store.schema import COLLECTIONS, collections, index_spec

log = logging.getLogger(__name__)

T = TypeVar("T")
_LAYOUT_KEY = "memhub_layout"  # in the metadata of the prefix's meta collection

# -- pure translation (no I/O) ---------------------------------------------------


def _condition(c: Condition) -> models.Condition:
    if isinstance(c, Match):
        return models.FieldCondition(key=c.key, match=models.MatchValue(value=c.value))
    if isinstance(c, MatchAny):
        return models.FieldCondition(key=c.key, match=models.MatchAny(any=list(c.values)))
    if isinstance(c, IsEmpty):
        return models.IsEmptyCondition(is_empty=models.PayloadField(key=c.key))
    if isinstance(c, DateRange):
        gte, lte = (None if t is None else datetime.fromisoformat(t) for t in (c.gte, c.lte))
        return models.FieldCondition(key=c.key, range=models.DatetimeRange(gte=gte, lte=lte))
    if isinstance(c, HasVector):
        return models.HasVectorCondition(has_vector=c.name)
    if isinstance(c, Where):
        return _filter(c)
    raise TypeError(f"unsupported condition {c!r}")


def to_qdrant_filter(where: Where | None) -> models.Filter | None:
    """Translate a neutral ``Where`` into a qdrant-client ``Filter`` (empty clauses left out)."""
    return None if where is None else _filter(where)


def _filter(where: Where) -> models.Filter:
    return models.Filter(
        must=[_condition(c) for c in where.must] or None,
        should=[_condition(c) for c in where.should] or None,
        must_not=[_condition(c) for c in where.must_not] or None,
    )


def to_qdrant_point(p: StoredPoint) -> models.PointStruct:
    vector: dict[str, Any] = {}
    if p.dense is not None:
        vector[DENSE] = list(p.dense)
    if p.sparse is not None:
        vector[BM25] = models.SparseVector(
            indices=list(p.sparse.indices), values=list(p.sparse.values)
        )
    return models.PointStruct(id=p.id, vector=vector, payload=p.payload)


def from_qdrant_record(
    record: models.Record | models.ScoredPoint, with_vectors: bool
) -> StoredPoint:
    dense: list[float] | None = None
    sparse: SparseVector | None = None
    if with_vectors and isinstance(record.vector, dict):
        # ``dense`` is configured as one vector (not a multivector): a list of floats
        dense = cast("list[float] | None", record.vector.get(DENSE))
        raw = record.vector.get(BM25)
        if isinstance(raw, models.SparseVector):
            sparse = SparseVector(list(raw.indices), list(raw.values))
    return StoredPoint(str(uuid.UUID(str(record.id))), dict(record.payload or {}), dense, sparse)


def collection_params(collection: Collection, vector_size: int) -> dict[str, Any]:
    """``create_collection`` arguments: vectors for ``memories``, none for the payload-only rest."""
    if collection == "memories":
        return {
            "vectors_config": {
                DENSE: models.VectorParams(size=vector_size, distance=models.Distance.COSINE)
            },
            "sparse_vectors_config": {
                BM25: models.SparseVectorParams(modifier=models.Modifier.IDF)
            },
        }
    return {"vectors_config": {}}


def index_fields(
    spec: IndexSpec,
) -> list[tuple[str, models.PayloadSchemaType | models.KeywordIndexParams]]:
    kinds = (
        (spec.keyword, models.PayloadSchemaType.KEYWORD),
        (spec.integer, models.PayloadSchemaType.INTEGER),
        (spec.datetime, models.PayloadSchemaType.DATETIME),
        (spec.boolean, models.PayloadSchemaType.BOOL),
    )
    tenant = models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    return [(key, tenant if key == spec.tenant else kind) for keys, kind in kinds for key in keys]


def _error(err: Exception, url: str) -> MemHubError:
    """The memhub error for a qdrant-client failure (raise it ``from err``)."""
    if isinstance(err, ResponseHandlingException):
        return MemHubError(f"cannot reach the Qdrant server at {url}: {err.source!r}")
    if isinstance(err, UnexpectedResponse):
        try:
            detail = str(err.structured()["status"]["error"])
        except (ValueError, KeyError, TypeError):
            detail = err.reason_phrase or "no detail"
        if err.status_code in (401, 403):
            return MemHubError(f"the Qdrant server at {url} refused access; check qdrant_api_key")
        if err.status_code in (400, 422):
            return InvalidInputError(f"the Qdrant server at {url} rejected the request: {detail}")
        return MemHubError(f"the Qdrant server at {url} failed ({err.status_code}): {detail}")
    if isinstance(err, ValueError):  # local mode reports bad requests as ValueError
        return InvalidInputError(str(err))
    return MemHubError(f"the Qdrant server at {url} failed: {err}")


_CLIENT_ERRORS = (ApiException, QdrantException, ValueError)


# -- the store -------------------------------------------------------------------


class QdrantServerStore:
    """The store on a Qdrant server or cluster, shared by any number of app processes.

    Args:
        url: the server, e.g. ``http://localhost:6333``; ``":memory:"`` for local mode.
        api_key: the server's API key, if it has one.
        prefix: collections are named ``f"{prefix}_{name}"``, so stores can share a server.
        client: an ``AsyncQdrantClient`` to use instead; the caller keeps and closes it.

    Example:
        >>> store = QdrantServerStore("http://localhost:6333", api_key=key)
        >>> await store.open(vector_size=384)
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        prefix: str = "memhub",
        client: AsyncQdrantClient | None = None,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self._owns_client = client is None
        if client is None:
            # qdrant-client's own version check runs in a thread that warns after the caller
            # has moved on (also when the server is down): ``open`` checks instead
            where: dict[str, Any] = (
                {"location": url}
                if url == ":memory:"
                else {"url": url, "api_key": api_key, "check_compatibility": False}
            )
            client = AsyncQdrantClient(**where)
        self._client = client
        options = client.init_options
        self._local = options.get("location") == ":memory:" or options.get("path") is not None
        self._vector_size = 0
        self._made: set[str] = set()  # the collections known to exist on the server
        self._version = 0

    @property
    def client(self) -> AsyncQdrantClient:
        """The qdrant-client instance, e.g. to share it with another store."""
        return self._client

    def _name(self, collection: Collection) -> str:
        return f"{self.prefix}_{collection}"

    async def _call(self, request: Awaitable[T]) -> T:
        try:
            return await request
        except _CLIENT_ERRORS as err:
            raise _error(err, self.url) from err

    # -- lifecycle ---------------------------------------------------------------

    async def open(self, vector_size: int) -> None:
        """See ``MemoryStore.open``: the layout version is the metadata of the prefix's
        ``meta`` collection (``memhub.store._migrations``)."""
        self._vector_size = vector_size
        if not self._local:
            await self._check_version()
        meta = self._name("meta")
        version, new = _migrations.UNVERSIONED, False
        if await self._call(self._client.collection_exists(meta)):
            info = await self._call(self._client.get_collection(meta))
            version = (info.config.metadata or {}).get(_LAYOUT_KEY, _migrations.UNVERSIONED)
            _migrations.check_known(version, f"{self.url} (prefix {self.prefix!r})")
        elif not await self._call(self._client.collection_exists(self._name("memories"))):
            version, new = _migrations.LATEST, True  # a new store: today's layout from the start
        self._made.clear()
        for name in COLLECTIONS:
            await self._make(name)
        if new:
            await self.record_layout_version(version)
        self._version = await _migrations.migrate_server(self, version)

    async def _check_version(self) -> None:
        """Log a warning when the server's version is one qdrant-client does not support
        (major versions differ, or minor versions by more than one)."""
        server = (await self._call(self._client.info())).version
        client = metadata.version("qdrant-client")
        if not is_compatible(client, server):
            log.warning(
                "the Qdrant server at %s runs %s, which qdrant-client %s does not support",
                self.url,
                server,
                client,
            )

    async def record_layout_version(self, version: int) -> None:
        """Record ``version`` as the layout this prefix's collections are in."""
        diff = {_LAYOUT_KEY: version}
        await self._call(self._client.update_collection(self._name("meta"), metadata=diff))

    def layout_version(self) -> int:
        return self._version

    def payload_form(self, collection: Collection) -> None:
        """``None``: a server keeps payloads as given."""
        return None

    async def _ready(self, collection: Collection) -> str:
        """The server's name of ``collection``, made on first use if an adapter registered it
        since the store was opened (or another process has not made it yet)."""
        if collection not in self._made:
            await self._make(collection)
        return self._name(collection)

    async def _make(self, name: Collection) -> None:
        spec = index_spec(name)  # first: an unknown name is refused before anything is made
        full = self._name(name)
        if not await self._call(self._client.collection_exists(full)):
            try:
                await self._client.create_collection(
                    full, **collection_params(name, self._vector_size)
                )
            except UnexpectedResponse as err:
                if err.status_code != 409:  # 409: another process created it first
                    raise _error(err, self.url) from err
            except _CLIENT_ERRORS as err:
                raise _error(err, self.url) from err
        if name == "memories":
            await self._check_size(full)
        if not self._local:  # local mode has no payload indexes (it warns that they do nothing)
            for key, kind in index_fields(spec):  # idempotent on a server
                await self._call(self._client.create_payload_index(full, key, field_schema=kind))
        self._made.add(name)

    async def _check_size(self, full: str) -> None:
        vectors = (await self._call(self._client.get_collection(full))).config.params.vectors
        params = vectors.get(DENSE) if isinstance(vectors, dict) else None
        size = params.size if params is not None else None
        if size != self._vector_size:
            held = f"{size}-d vectors" if size else f"no {DENSE!r} vector"
            raise EmbedderMismatchError(
                f"the collection {full} at {self.url} holds {held} but "
                f"the embedder makes {self._vector_size}-d vectors; "
                f"use the embedder it was built with or another prefix"
            )

    async def close(self) -> None:
        if self._owns_client:
            await self._client.close()

    # -- writes ------------------------------------------------------------------

    async def upsert(
        self,
        collection: Collection,
        points: Sequence[StoredPoint],
        *,
        only_if: Where | None = None,
        check: Callable[[list[StoredPoint]], None] | None = None,
    ) -> None:
        if not points:
            return
        if check is not None:
            check(await self.retrieve(collection, [p.id for p in points]))
        # update_filter is the server's conditional update: an existing point is replaced
        # only if it matches, a new point is inserted. Local mode applies it the same
        # way (LocalCollection._upsert_point), so no emulation is needed there.
        points_ = [to_qdrant_point(p) for p in points]
        flt = to_qdrant_filter(only_if)
        await self._call(
            self._client.upsert(await self._ready(collection), points_, update_filter=flt)
        )

    async def replace_payload(
        self,
        collection: Collection,
        point_id: str,
        payload: dict[str, Any],
        *,
        only_if: Where | None = None,
    ) -> None:
        must: list[Any] = [models.HasIdCondition(has_id=[point_id])]
        if only_if is not None:
            must.append(to_qdrant_filter(only_if))
        await self._call(
            self._client.overwrite_payload(
                await self._ready(collection), payload, points=models.Filter(must=must)
            )
        )

    async def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        if ids:
            selector = models.PointIdsList(points=list(ids))
            await self._call(self._client.delete(await self._ready(collection), selector))

    async def delete_vectors(self, ids: Sequence[str]) -> None:
        if ids:
            selector = models.PointIdsList(points=list(ids))
            await self._call(
                self._client.delete_vectors(self._name("memories"), [DENSE, BM25], selector)
            )

    # -- reads -------------------------------------------------------------------

    async def retrieve(
        self,
        collection: Collection,
        ids: Sequence[str],
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        if not ids:
            return []
        request = self._client.retrieve(
            await self._ready(collection),
            list(ids),
            with_payload=with_payload,
            with_vectors=with_vectors,
        )
        return [from_qdrant_record(r, with_vectors) for r in await self._call(request)]

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
        order = None
        if order_by:  # a server needs a range index on the key: the datetime indexes in schema
            direction = models.Direction.DESC if descending else models.Direction.ASC
            order = models.OrderBy(key=order_by, direction=direction)
        flt = to_qdrant_filter(where)
        request = self._client.scroll(
            await self._ready(collection),
            flt,
            limit=limit,
            order_by=order,
            offset=offset,
            with_vectors=with_vectors,
        )
        records, next_offset = await self._call(request)
        nxt = None if next_offset is None or order else str(uuid.UUID(str(next_offset)))
        return [from_qdrant_record(r, with_vectors) for r in records], nxt

    async def count(self, collection: Collection, where: Where | None = None) -> int:
        request = self._client.count(
            await self._ready(collection), to_qdrant_filter(where), exact=True
        )
        return (await self._call(request)).count

    async def facet(
        self, collection: Collection, key: str, where: Where | None = None, *, limit: int = 100
    ) -> list[tuple[str | int | bool, int]]:
        request = self._client.facet(
            await self._ready(collection),
            key,
            facet_filter=to_qdrant_filter(where),
            limit=limit,
            exact=True,
        )
        found = [(h.value, int(h.count)) for h in (await self._call(request)).hits]
        found.sort(key=lambda f: (-f[1], str(f[0])))
        return found

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
        flt = to_qdrant_filter(where)
        prefetch = [
            models.Prefetch(query=list(dense), using=DENSE, filter=flt, limit=prefetch_limit)
        ]
        if sparse.indices:
            bm25 = models.SparseVector(indices=list(sparse.indices), values=list(sparse.values))
            prefetch.append(
                models.Prefetch(query=bm25, using=BM25, filter=flt, limit=prefetch_limit)
            )
        rrf = models.RrfQuery(
            rrf=models.Rrf(k=rrf_k, weights=list(weights[: len(prefetch)]) if weights else None)
        )
        return await self._query(rrf, prefetch=prefetch, query_filter=flt, limit=limit)

    async def dense_query(
        self, dense: list[float], where: Where | None, *, limit: int
    ) -> list[ScoredPoint]:
        return await self._query(
            list(dense), using=DENSE, query_filter=to_qdrant_filter(where), limit=limit
        )

    async def sparse_query(
        self, sparse: SparseVector, where: Where | None, *, limit: int
    ) -> list[ScoredPoint]:
        if not sparse.indices:
            return []
        bm25 = models.SparseVector(indices=list(sparse.indices), values=list(sparse.values))
        return await self._query(
            bm25, using=BM25, query_filter=to_qdrant_filter(where), limit=limit
        )

    async def _query(self, query: Any, **kwargs: Any) -> list[ScoredPoint]:
        request = self._client.query_points(self._name("memories"), query, **kwargs)
        hits = (await self._call(request)).points
        return [ScoredPoint(from_qdrant_record(h, False), h.score) for h in hits]

    # -- maintenance -------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def bulk(self) -> AsyncIterator[None]:
        """The server's optimizers index in the background: nothing to defer here."""
        yield

    async def prefetch(self, collection: Collection, *, vectors: bool = False) -> None:
        """The server reads its own storage: nothing to read ahead here."""

    async def compact(self, progress: Callable[[int], None] | None = None) -> None:
        """Wake the server's optimizers on every collection; a no-op in local mode.

        Guaranteed: deleted points, removed vectors and overwritten payloads are never
        returned again by any read.

        Not guaranteed on a server: physical erasure. The empty ``optimizers_config``
        update only starts the optimizers (as for a "grey" collection); the vacuum
        optimizer rewrites a segment only when it meets the collection's thresholds
        (by default 20% of it deleted and at least 1000 vectors), it runs in the
        background after this returns, the write-ahead log keeps recent operations
        (old payloads included) until its segments rotate out, and snapshots and
        replicas keep what they held. Erasure on a server needs those thresholds, the
        WAL settings and snapshots managed on the server. ``EdgeStore.compact``, by
        contrast, rewrites its files. ``":memory:"`` has no files: nothing to do.
        """
        if self._local:
            return
        for name in collections():
            diff = models.OptimizersConfigDiff()
            await self._call(
                self._client.update_collection(await self._ready(name), optimizers_config=diff)
            )
