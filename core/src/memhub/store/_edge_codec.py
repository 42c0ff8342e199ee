"""The port's filters and points in the Qdrant Edge binding's types, and back (pure, no I/O).

Each collection is written in a ``facets.Layout``: conditions on its facet keys become
conditions on ``_facets``, and payloads go through ``facets.stored``/``facets.restore``.
"""

from __future__ import annotations

import array
import uuid
from typing import Any, cast

import numpy as np
import qdrant_edge as qe

from memhub.store import facets
from memhub.store.base import (
    BM25,
    DENSE,
    Condition,
    DateRange,
    HasVector,
    IsEmpty,
    Match,
    MatchAny,
    SparseVector,
    StoredPoint,
    Where,
)
from memhub.store.facets import Layout


def _condition(c: Condition, layout: Layout) -> qe.ConditionType:
    if isinstance(c, Match | MatchAny | IsEmpty | DateRange) and c.key in layout.packed:
        raise TypeError(f"{c.key!r} is kept packed on this store, no filter can name it: {c!r}")
    if isinstance(c, Match | MatchAny | IsEmpty) and c.key in layout.keys:
        faceted = _facet_condition(c, layout)
        if faceted is not None:
            return faceted
    if isinstance(c, DateRange | IsEmpty) and c.key in layout.marked:
        # no index holds the values: the mark narrows to the records holding one first
        mark = _has(layout, [facets.present(c.key)])
        if isinstance(c, IsEmpty):
            return qe.Filter(must_not=[mark])
        return qe.Filter(must=[mark, qe.FieldCondition(c.key, range=_range(c))])
    if isinstance(c, Match):
        # The binding reads a Python bool as the integer 1/0 (so it would match 1, never
        # true); numpy.bool_ is not an int and arrives as a real bool.
        value = np.bool_(c.value) if isinstance(c.value, bool) else c.value
        # the stub says bool; numpy.bool_ is what the binding reads as one (see above)
        return qe.FieldCondition(c.key, match=qe.MatchValue(value))  # type: ignore[arg-type]
    if isinstance(c, MatchAny):
        return qe.FieldCondition(c.key, match=qe.MatchAny(list(c.values)))
    if isinstance(c, IsEmpty):
        return qe.IsEmptyCondition(c.key)
    if isinstance(c, DateRange):
        return qe.FieldCondition(c.key, range=_range(c))
    if isinstance(c, HasVector):
        return qe.HasVectorCondition(c.name)
    if isinstance(c, Where):
        return edge_filter(c, layout)
    raise TypeError(f"unsupported condition {c!r}")


def _range(c: DateRange) -> qe.RangeDateTime:
    return qe.RangeDateTime(gte=c.gte, lte=c.lte)


def _facet_condition(
    c: Match | MatchAny | IsEmpty, layout: Layout
) -> qe.FieldCondition | qe.Filter | None:
    """The same condition on ``_facets``, if it can be said there. A value no token holds
    (a float) is stored as its own field, so the field answers for it."""
    if isinstance(c, IsEmpty):
        if c.key in layout.present:
            return qe.Filter(must_not=[_has(layout, [facets.present(c.key)])])
        return _has(layout, [facets.empty(c.key)])
    values = (c.value,) if isinstance(c, Match) else c.values
    found = [facets.token(c.key, v) for v in values]
    tokens = [t for t in found if t is not None]
    if len(tokens) < len(found):
        return None
    return _has(layout, tokens)


def _has(layout: Layout, tokens: list[str]) -> qe.FieldCondition:
    """A point whose ``_facets`` holds one of ``tokens``."""
    match: qe.MatchValue | qe.MatchAny | qe.MatchText | qe.MatchTextAny
    if layout.tokens == "text":
        words = [facets.word(t) for t in tokens]
        match = qe.MatchText(words[0]) if len(words) == 1 else qe.MatchTextAny(" ".join(words))
    else:
        values: list[Any] = layout.hashes(tokens) if layout.hashed else tokens
        match = qe.MatchValue(values[0]) if len(values) == 1 else qe.MatchAny(values)
    return qe.FieldCondition(facets.FACETS, match=match)


def to_edge_filter(where: Where | None, layout: Layout | None = None) -> qe.Filter | None:
    """``where`` for Edge, for a collection written in ``layout``."""
    return None if where is None else edge_filter(where, layout or Layout())


def edge_filter(where: Where, layout: Layout) -> qe.Filter:
    return qe.Filter(
        must=[_condition(c, layout) for c in where.must] or None,
        should=[_condition(c, layout) for c in where.should] or None,
        must_not=[_condition(c, layout) for c in where.must_not] or None,
    )


def fusion(k: int, weights: tuple[float, float] | None, sources: int) -> qe.Fusion:
    rrf = qe.Fusion.Rrf(k=k, weights=list(weights[:sources])) if weights else qe.Fusion.Rrf(k=k)
    # the stub nests Rrf in Fusion without declaring it a subclass, as the binding does
    return rrf  # type: ignore[return-value]


def point_id(pid: qe.PointId) -> str:
    return str(pid) if isinstance(pid, uuid.UUID) else str(uuid.UUID(str(pid)))


class _Read(StoredPoint):
    """A point read from a shard, its id spelled as the port's string when first read: the
    binding builds a ``uuid.UUID`` for it and ``str`` spells that (~2.5 us a point, 5% of an
    export's CPU), and an export never reads a memory's (its payload holds it). Copied or
    pickled, it is a plain ``StoredPoint``."""

    def __init__(
        self,
        record: qe.Record | qe.ScoredPoint,
        payload: dict[str, Any],
        dense: list[float] | None,
        sparse: SparseVector | None,
    ) -> None:
        self._record = record
        self._id: str | None = None
        self.payload, self.dense, self.sparse = payload, dense, sparse

    @property
    def id(self) -> str:
        # not functools.cached_property: its lock cost as much as the id (an export's steps)
        if self._id is None:
            self._id = point_id(self._record.id)
        return self._id

    @id.setter
    def id(self, value: str) -> None:
        self._id = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StoredPoint):
            return NotImplemented
        mine = (self.id, self.payload, self.dense, self.sparse)
        return mine == (other.id, other.payload, other.dense, other.sparse)

    __hash__ = None  # type: ignore[assignment]  # as StoredPoint's: mutable, compared by value

    def __reduce__(self) -> tuple[type[StoredPoint], tuple[Any, ...]]:
        return StoredPoint, (self.id, self.payload, self.dense, self.sparse)


def from_record(record: qe.Record | qe.ScoredPoint, with_vectors: bool) -> StoredPoint:
    dense: list[float] | None = None
    sparse: SparseVector | None = None
    # each read of ``vector`` or ``payload`` converts it anew: read each once
    vector = record.vector if with_vectors else None
    if isinstance(vector, dict):
        # ``dense`` is configured as one vector (not a multivector): a list of floats
        dense = cast("list[float] | None", vector.get(DENSE))
        raw = vector.get(BM25)
        if isinstance(raw, qe.SparseVector):
            sparse = SparseVector(list(raw.indices), list(raw.values))
    return _Read(record, facets.restore(record.payload or {}), dense, sparse)


_READ_AS_IS = (list, array.array)


def to_point(p: StoredPoint, layout: Layout) -> qe.Point:
    vector: dict[str, Any] = {}
    if p.dense is not None:  # a list or an array('f') as it is: the binding reads both
        vector[DENSE] = p.dense if type(p.dense) in _READ_AS_IS else list(p.dense)
    if p.sparse is not None:
        vector[BM25] = qe.SparseVector(p.sparse.indices, p.sparse.values)
    return qe.Point(p.id, vector, facets.stored(p.payload, layout))
