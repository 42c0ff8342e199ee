"""Facets: how ``EdgeStore`` indexes a collection's keyword and bool keys as one field.

Every payload index of an appendable Qdrant Edge segment maps ~5 MB of pages
that are read on open, and every in-RAM index of an optimized segment is rebuilt
on open. Twenty indexes on ``memories`` were ~100 MB of RSS and most of the open
time at 100k memories, though reads filter on the access key and use the other
keys only to narrow what it found (bench/README.md). So ``EdgeStore`` stores
``key, value`` pairs of all of them in one indexed list, ``_facets``, and
rewrites a condition on such a key into a condition on that list. Filters keep
their meaning exactly (the conformance suite runs the same cases on both
backends); ``QdrantServerStore`` keeps one index per key.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memhub.store.base import IndexSpec

FACETS = "_facets"


def facet_keys(spec: IndexSpec) -> frozenset[str]:
    """The keys indexed through ``_facets``: the keyword and bool ones but the hot and the
    tenant key. Integer and datetime keys keep their own (range) index: ``order_by`` needs one."""
    return frozenset(spec.keyword + spec.boolean) - {*spec.hot, spec.tenant}


def token(key: str, value: Any) -> str | None:
    """The facet of ``key == value``; ``None`` for a type facets don't hold."""
    if isinstance(value, bool):  # before int: bool is an int
        return f"{key}\x1fb{int(value)}"
    if isinstance(value, int):
        return f"{key}\x1fi{value}"
    if isinstance(value, str):
        return f"{key}\x1fs{value}"
    return None


def value_of(key: str, facet: str) -> str | int | bool | None:
    """The value of ``key`` a facet token stands for (``token``'s inverse); ``None`` for
    a token of another key or of an empty value."""
    prefix = f"{key}\x1f"
    if not facet.startswith(prefix) or len(facet) <= len(prefix):
        return None
    kind, text = facet[len(prefix)], facet[len(prefix) + 1 :]
    if kind == "b":
        return text == "1"
    return int(text) if kind == "i" else text


def empty(key: str) -> str:
    """The facet of ``key`` missing, null or an empty list (Qdrant's ``is_empty``)."""
    return f"{key}\x1e"


def facets(payload: dict[str, Any], keys: Iterable[str]) -> list[str]:
    out: list[str] = []
    for key in keys:
        value = payload.get(key)
        if value is None or value == []:
            out.append(empty(key))
            continue
        for item in value if isinstance(value, list) else (value,):
            if (t := token(key, item)) is not None:
                out.append(t)
    return out
