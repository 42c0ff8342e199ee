"""The baseline: the ``MemoryStore`` port on qdrant-client's local mode.

Used only when ``memhub.store.server.QdrantServerStore`` is not available (or
cannot run in local mode). Same layout as ``EdgeStore``: ``memories`` with a
384-d cosine ``dense`` vector and a ``bm25`` sparse vector with the IDF modifier,
payload-only ``events``/``meta``/checkpoint collections, the same payload
indexes (local mode accepts them but filters by scanning), and the same hybrid
query (two filtered prefetches fused by RRF).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from qdrant_client import QdrantClient, models

from memhub.store.base import (
    BM25,
    DENSE,
    Collection,
    DateRange,
    HasVector,
    IsEmpty,
    Match,
    MatchAny,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    Where,
)
from memhub.store.schema import COLLECTIONS, INDEXES


def _condition(c):
    if isinstance(c, Match):
        return models.FieldCondition(key=c.key, match=models.MatchValue(value=c.value))
    if isinstance(c, MatchAny):
        return models.FieldCondition(key=c.key, match=models.MatchAny(any=list(c.values)))
    if isinstance(c, IsEmpty):
        return models.IsEmptyCondition(is_empty=models.PayloadField(key=c.key))
    if isinstance(c, DateRange):
        return models.FieldCondition(key=c.key, range=models.DatetimeRange(gte=c.gte, lte=c.lte))
    if isinstance(c, HasVector):
        return models.HasVectorCondition(has_vector=c.name)
    if isinstance(c, Where):
        return to_filter(c)
    raise TypeError(f"unsupported condition {c!r}")


def to_filter(where: Where | None) -> models.Filter | None:
    if where is None:
        return None
    return models.Filter(
        must=[_condition(c) for c in where.must] or None,
        should=[_condition(c) for c in where.should] or None,
        must_not=[_condition(c) for c in where.must_not] or None,
    )


def _from_record(record, with_vectors: bool) -> StoredPoint:
    dense = sparse = None
    if with_vectors and isinstance(record.vector, dict):
        dense = record.vector.get(DENSE)
        raw = record.vector.get(BM25)
        if raw is not None:
            sparse = SparseVector(list(raw.indices), list(raw.values))
    return StoredPoint(str(uuid.UUID(str(record.id))), dict(record.payload or {}), dense, sparse)


def _to_point(p: StoredPoint) -> models.PointStruct:
    vector: dict = {}
    if p.dense is not None:
        vector[DENSE] = list(p.dense)
    if p.sparse is not None:
        vector[BM25] = models.SparseVector(indices=p.sparse.indices, values=p.sparse.values)
    return models.PointStruct(id=p.id, vector=vector, payload=p.payload)


_KINDS = (
    ("keyword", models.PayloadSchemaType.KEYWORD),
    ("integer", models.PayloadSchemaType.INTEGER),
    ("datetime", models.PayloadSchemaType.DATETIME),
    ("boolean", models.PayloadSchemaType.BOOL),
)


class LocalModeStore:
    """``MemoryStore`` on ``QdrantClient(path=...)`` (or ``":memory:"``)."""

    def __init__(self, path: str | Path, prefix: str = "memhub") -> None:
        self.path = str(path)
        self.prefix = prefix
        self._client: QdrantClient | None = None

    def _name(self, collection: Collection) -> str:
        return f"{self.prefix}_{collection}"

    async def open(self, vector_size: int) -> None:
        if self.path == ":memory:":
            self._client = QdrantClient(location=":memory:")
        else:
            self._client = QdrantClient(path=self.path)
        c = self._client
        for name in COLLECTIONS:
            full = self._name(name)
            if c.collection_exists(full):
                continue
            if name == "memories":
                c.create_collection(
                    full,
                    vectors_config={DENSE: models.VectorParams(size=vector_size, distance=models.Distance.COSINE)},
                    sparse_vectors_config={BM25: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                )
            else:
                c.create_collection(full, vectors_config={})
            spec = INDEXES[name]
            for attr, kind in _KINDS:
                for key in getattr(spec, attr):
                    c.create_payload_index(full, key, field_schema=kind)

    async def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    async def upsert(self, collection, points: Sequence[StoredPoint], *, only_if: Where | None = None) -> None:
        if points:
            self._client.upsert(
                self._name(collection), [_to_point(p) for p in points], update_filter=to_filter(only_if)
            )

    async def retrieve(self, collection, ids: Sequence[str], *, with_vectors: bool = False) -> list[StoredPoint]:
        if not ids:
            return []
        records = self._client.retrieve(self._name(collection), list(ids), with_payload=True, with_vectors=with_vectors)
        return [_from_record(r, with_vectors) for r in records]

    async def delete(self, collection, ids: Sequence[str]) -> None:
        if ids:
            self._client.delete(self._name(collection), models.PointIdsList(points=list(ids)))

    async def delete_vectors(self, ids: Sequence[str]) -> None:
        if ids:
            self._client.delete_vectors(self._name("memories"), vectors=[DENSE, BM25], points=list(ids))

    async def scroll(self, collection, where=None, *, limit=100, offset=None, order_by=None, descending=False):
        order = None
        if order_by:
            order = models.OrderBy(key=order_by, direction=models.Direction.DESC if descending else models.Direction.ASC)
        records, nxt = self._client.scroll(
            self._name(collection), scroll_filter=to_filter(where), limit=limit, offset=None if order else offset,
            with_payload=True, with_vectors=False, order_by=order,
        )  # fmt: skip
        return [_from_record(r, False) for r in records], (None if nxt is None or order else str(nxt))

    async def count(self, collection, where=None) -> int:
        return self._client.count(self._name(collection), count_filter=to_filter(where), exact=True).count

    async def hybrid_query(self, dense, sparse, where, *, limit, prefetch_limit, rrf_k) -> list[ScoredPoint]:
        flt = to_filter(where)
        prefetch = [models.Prefetch(query=list(dense), using=DENSE, filter=flt, limit=prefetch_limit)]
        if sparse.indices:
            prefetch.append(
                models.Prefetch(
                    query=models.SparseVector(indices=sparse.indices, values=sparse.values),
                    using=BM25, filter=flt, limit=prefetch_limit,
                )  # fmt: skip
            )
        res = self._client.query_points(
            self._name("memories"), prefetch=prefetch, query=models.RrfQuery(rrf=models.Rrf(k=rrf_k)),
            query_filter=flt, limit=limit, with_payload=True,
        )  # fmt: skip
        return [ScoredPoint(_from_record(h, False), float(h.score)) for h in res.points]

    async def dense_query(self, dense, where, *, limit) -> list[ScoredPoint]:
        res = self._client.query_points(
            self._name("memories"), query=list(dense), using=DENSE, query_filter=to_filter(where),
            limit=limit, with_payload=True,
        )  # fmt: skip
        return [ScoredPoint(_from_record(h, False), float(h.score)) for h in res.points]

    async def compact(self) -> None:
        """Local mode keeps everything in memory and rewrites its SQLite on write: nothing to do."""

    async def optimize(self) -> None:
        """Local mode has no index to build."""
