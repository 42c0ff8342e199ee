"""Filters and points as JSON, for the record API over HTTP (pure, no I/O)."""

from __future__ import annotations

from typing import Any

from memhub.errors import InvalidInputError
from memhub.store.base import (
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

_KINDS: dict[str, type[Condition]] = {
    "match": Match,
    "match_any": MatchAny,
    "is_empty": IsEmpty,
    "date_range": DateRange,
    "has_vector": HasVector,
    "where": Where,
}
_NAMES = {cls: name for name, cls in _KINDS.items()}


def where_to_json(where: Where | None) -> dict[str, Any] | None:
    """``where`` as plain JSON; :func:`where_from_json` reverses it."""
    return None if where is None else _condition_to_json(where)


def _condition_to_json(c: Condition) -> dict[str, Any]:
    if isinstance(c, Where):
        return {
            "kind": "where",
            **{
                part: [_condition_to_json(x) for x in getattr(c, part)]
                for part in ("must", "should", "must_not")
            },
        }
    fields = dict(vars(c))
    if isinstance(c, MatchAny):
        fields["values"] = list(c.values)
    return {"kind": _NAMES[type(c)], **fields}


def where_from_json(data: dict[str, Any] | None) -> Where | None:
    if data is None:
        return None
    where = _condition_from_json(data)
    if not isinstance(where, Where):
        raise InvalidInputError("a filter must be a 'where'")
    return where


def _condition_from_json(data: Any) -> Condition:
    if not isinstance(data, dict) or data.get("kind") not in _KINDS:
        raise InvalidInputError(f"not a filter condition: {str(data)[:100]}")
    fields = {k: v for k, v in data.items() if k != "kind"}
    try:
        if data["kind"] == "where":
            return Where(
                **{
                    part: tuple(_condition_from_json(x) for x in fields.get(part, ()))
                    for part in ("must", "should", "must_not")
                }
            )
        if data["kind"] == "match_any":
            fields["values"] = tuple(fields.get("values", ()))
        return _KINDS[data["kind"]](**fields)
    except TypeError as err:
        raise InvalidInputError(f"bad filter condition {data['kind']!r}: {err}") from err


def point_to_json(point: StoredPoint) -> dict[str, Any]:
    out: dict[str, Any] = {"id": point.id, "payload": point.payload}
    if point.dense is not None:
        out["dense"] = list(point.dense)
    if point.sparse is not None:
        out["sparse"] = {"indices": list(point.sparse.indices), "values": list(point.sparse.values)}
    return out


def point_from_json(data: dict[str, Any]) -> StoredPoint:
    try:
        sparse = data.get("sparse")
        return StoredPoint(
            str(data["id"]),
            dict(data["payload"]),
            data.get("dense"),
            SparseVector(list(sparse["indices"]), list(sparse["values"])) if sparse else None,
        )
    except (KeyError, TypeError, ValueError) as err:
        raise InvalidInputError(f"not a stored point: {err}") from err
