"""How LangGraph store items are laid out in memhub's ``memories`` collection (pure, no I/O).

An item is one record of layer ``"item"``; every indexed text beyond its first
is one more record of layer ``"item_text"`` pointing back at it. memhub's own
reads (recall, search, list, search_conversation) filter on their layers, so
they never see either.

Item payload::

    id            ULID of the point (the engine sorts RRF ties by it)
    layer         "item"
    tenant, user_id, ...   memhub scope: tenant from the client, the rest from the namespace
    namespace     ["users", "alice", "memories"]      the labels, to rebuild the tuple
    ns            "users.alice.memories"              exact-namespace filter (labels hold no ".")
    ns_prefixes   ["users", "users.alice", "users.alice.memories"]   prefix filter
    key, value    the key and the value as JSON text (exact round trip of ints and NaN)
    created_at, updated_at, expires_at, ttl_minutes
    texts         how many indexed texts the item has (0: not searchable by query)
    item          its own id (an ``item_text`` record carries its item's id here)
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from langgraph.store.base import MatchCondition, get_text_at_path, tokenize_path

from memhub.ids import from_point_id
from memhub.scope import SCOPE_KEYS
from memhub.store.base import Match, MatchAny, Where

ITEM = "item"
ITEM_TEXT = "item_text"
_ID_SPACE = uuid.UUID("6b1f5a52-0c1e-4d36-9f55-1c2b8f0a7e11")

ScopeFn = Callable[[tuple[str, ...]], Mapping[str, str]]


def namespace_scope(**positions: int) -> ScopeFn:
    """A namespace -> memhub scope mapping by label position.

    Example:
        >>> scope = namespace_scope(user_id=1)
        >>> scope(("memories", "alice"))
        {'user_id': 'alice'}
        >>> namespace_scope(user_id=0, agent_id=-1)(("alice", "notes", "planner"))
        {'user_id': 'alice', 'agent_id': 'planner'}

    A position the namespace is too short for is left out. ``tenant`` cannot be
    mapped: it always comes from the client, so namespaces never cross tenants.
    """
    allowed = set(SCOPE_KEYS) - {"tenant"}
    unknown = set(positions) - allowed
    if unknown:
        raise ValueError(f"unknown scope keys {sorted(unknown)}; choose from {sorted(allowed)}")

    def scope(namespace: tuple[str, ...]) -> dict[str, str]:
        n = len(namespace)
        return {key: namespace[pos] for key, pos in positions.items() if -n <= pos < n}

    return scope


def no_scope(namespace: tuple[str, ...]) -> dict[str, str]:
    """The default mapping: items carry only the client's tenant (and app_id)."""
    return {}


# -- ids ------------------------------------------------------------------------------


def item_point_id(tenant: str, namespace: Sequence[str], key: str) -> str:
    """Deterministic point id of an item: one point per (tenant, namespace, key)."""
    return str(uuid.uuid5(_ID_SPACE, json.dumps([tenant, list(namespace), key])))


def text_point_id(item_pid: str, index: int) -> str:
    return str(uuid.uuid5(uuid.UUID(item_pid), f"text:{index}"))


# -- payloads -------------------------------------------------------------------------


def now() -> datetime:
    return datetime.now(UTC)


def iso(at: datetime) -> str:
    return at.isoformat(timespec="microseconds")


def namespace_fields(namespace: Sequence[str]) -> dict[str, Any]:
    labels = list(namespace)
    return {
        "namespace": labels,
        "ns": ".".join(labels),
        "ns_prefixes": [".".join(labels[: i + 1]) for i in range(len(labels))],
    }


def item_payload(
    pid: str,
    *,
    tenant: str,
    scope: Mapping[str, str],
    namespace: Sequence[str],
    key: str,
    value: Mapping[str, Any],
    created_at: str,
    at: datetime,
    ttl: float | None,
    texts: int,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": from_point_id(pid),
        "layer": ITEM,
        **scope,
        "tenant": tenant,
        **namespace_fields(namespace),
        "key": key,
        "value": json.dumps(dict(value), ensure_ascii=False),
        "created_at": created_at,
        "updated_at": iso(at),
        "texts": texts,
        "item": pid,
    }
    if ttl is not None:
        payload["ttl_minutes"] = ttl
        payload["expires_at"] = iso(at + timedelta(minutes=ttl))
    return payload


def text_payload(item: Mapping[str, Any], pid: str, path: str) -> dict[str, Any]:
    keep = {
        k: item[k]
        for k in (*SCOPE_KEYS, "namespace", "ns", "ns_prefixes", "key", "item")
        if k in item
    }
    return {"id": from_point_id(pid), "layer": ITEM_TEXT, "path": path, **keep}


def refreshed(payload: Mapping[str, Any], at: datetime) -> dict[str, Any]:
    """The payload with its expiry pushed ``ttl_minutes`` past ``at``."""
    return {**payload, "expires_at": iso(at + timedelta(minutes=float(payload["ttl_minutes"])))}


def is_expired(payload: Mapping[str, Any], at: datetime) -> bool:
    expires = payload.get("expires_at")
    if not expires:
        return False
    return datetime.fromisoformat(expires) <= at


def decode_value(payload: Mapping[str, Any]) -> dict[str, Any]:
    return json.loads(payload["value"])


# -- what gets embedded ---------------------------------------------------------------


def tokenized_fields(fields: Sequence[str] | None) -> list[tuple[str, str | list[str]]]:
    return [(p, "$" if p == "$" else tokenize_path(p)) for p in (fields or ["$"])]


def extract_texts(
    value: Mapping[str, Any],
    index: Sequence[str] | None,
    default: list[tuple[str, str | list[str]]],
) -> list[tuple[str, str]]:
    """``(path, text)`` pairs to embed, as ``InMemoryStore`` chooses them.

    ``index=None`` uses the store's fields; a list overrides them for this put.
    A path yielding several texts (``"tags[*]"``) yields ``path.0``, ``path.1``...
    """
    paths = default if index is None else tokenized_fields(index)
    out: list[tuple[str, str]] = []
    for path, tokens in paths:
        texts = [t for t in get_text_at_path(value, tokens) if t]
        if len(texts) > 1:
            out.extend((f"{path}.{i}", text) for i, text in enumerate(texts))
        elif texts:
            out.append((path, texts[0]))
    return out


# -- filters --------------------------------------------------------------------------


def items_where(tenant: str, prefix: Sequence[str], layers: Iterable[str] = (ITEM,)) -> Where:
    """Records of ``layers`` in ``tenant`` whose namespace starts with ``prefix`` (label-wise)."""
    layers = tuple(layers)
    must: list = [
        Match("tenant", tenant),
        MatchAny("layer", layers) if len(layers) > 1 else Match("layer", layers[0]),
    ]
    if prefix:
        must.append(Match("ns_prefixes", ".".join(prefix)))
    return Where(must=tuple(must))


def literal_prefix(conditions: Iterable[MatchCondition] | None) -> tuple[str, ...]:
    """The longest wildcard-free head of the prefix conditions, to narrow a scan in Qdrant."""
    best: tuple[str, ...] = ()
    for condition in conditions or ():
        if condition.match_type != "prefix":
            continue
        head: list[str] = []
        for label in condition.path:
            if label == "*":
                break
            head.append(label)
        if len(head) > len(best):
            best = tuple(head)
    return best


def does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether a namespace satisfies a prefix/suffix condition (``"*"`` spans one label)."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(p == "*" or k == p for k, p in pairs)


def _lookup(value: Mapping[str, Any], key: str) -> Any:
    """``value[key]``; a dotted key missing at the top level walks nested objects."""
    if key in value or "." not in key:
        return value.get(key)
    current: Any = value
    for part in key.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return None
        current = current[part]
    return current


def matches_filter(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """``InMemoryStore``'s filter semantics: exact (JSON-like) match or
    ``$eq/$ne/$gt/$gte/$lt/$lte``.
    """
    return not flt or all(_compare(_lookup(value, k), v) for k, v in flt.items())


def _compare(item_value: Any, filter_value: Any) -> bool:
    if isinstance(filter_value, Mapping):
        if any(str(k).startswith("$") for k in filter_value):
            return all(_apply(item_value, op, operand) for op, operand in filter_value.items())
        if not isinstance(item_value, Mapping):
            return False
        return all(_compare(item_value.get(k), v) for k, v in filter_value.items())
    if isinstance(filter_value, list | tuple):
        return (
            isinstance(item_value, list | tuple)
            and len(item_value) == len(filter_value)
            and all(_compare(iv, fv) for iv, fv in zip(item_value, filter_value, strict=False))
        )
    return item_value == filter_value


def _apply(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return value == operand
    if operator == "$ne":
        return value != operand
    compare = _ORDERED.get(operator)
    if compare is None:
        raise ValueError(f"Unsupported operator: {operator}")
    # InMemoryStore raises TypeError on a missing or non-numeric field; like the
    # SQL stores, such an item simply does not match.
    try:
        left, right = float(value), float(operand)
    except (TypeError, ValueError):
        return False
    return not (math.isnan(left) or math.isnan(right)) and compare(left, right)


_ORDERED: dict[str, Callable[[float, float], bool]] = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}
