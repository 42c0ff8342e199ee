"""Facets: how ``EdgeStore`` lays out a collection's payloads (pure, no I/O).

Every payload index of an appendable Qdrant Edge segment maps ~5 MB of pages
that are read on open, and every in-RAM index of an optimized segment is rebuilt
on open. Twenty indexes on ``memories`` were ~100 MB of RSS and most of the open
time at 100k memories, though reads filter on the access key and use the other
keys only to narrow what it found (bench/README.md). So ``EdgeStore`` stores
``key, value`` pairs of all of them in one indexed list, ``_facets``, and
rewrites a condition on such a key into a condition on that list. Filters keep
their meaning exactly (the conformance suite runs the same cases on both
backends); ``QdrantServerStore`` keeps one index per key and the payload as given.

The binding converts a payload value by value (~2.6 us of CPU each, and indexing
a token costs about as much again), so a layout writes as few values as it can
(an import's writes, bench/README.md):

- a facet key whose value one token says exactly (a string, integer or bool) is not
  stored a second time as its own field;
- emptiness (``IsEmpty``) is a token of its own: for most keys a token when the key
  is empty, for the keys most records lack (``IndexSpec.optional``) a token when it
  holds a value, so a typical memory carries neither;
- the keys no filter names (``IndexSpec.packed``) are kept together in one JSON string;
- a facet key's scalar is kept in that string too (``Layout.in_doc``), so a read does
  not parse it back from its token: an export spent a fifth of its CPU in ``restore``'s
  loop over tokens (bench/README.md);
- the tokens are 64-bit integer hashes under an integer index (``Layout.tokens``): the
  binding converts an integer in a third of a string's time, and the index build is
  cheaper. Counting by value (``facet``) then reads the values from ``DOC``, as no
  index holds them any more. The hashes are non-negative (63 bits): the binding tries a
  value as each type in turn, building an error for each miss, and a negative integer
  misses once more than a positive one (``"uints"``; shards written with signed hashes,
  ``"ints"``, keep them). (One string of hashed words under a text index converted
  faster still, but Qdrant's text index maps a 32 MB page per appendable segment that is
  read on every open: +30 MB of RSS per shard. Shards written so keep it.)

``stored`` writes a payload so and ``restore`` reads it back as it was given.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from memhub.store.base import IndexSpec

FACETS = "_facets"
DOC = "_doc"


@dataclass(frozen=True)
class Layout:
    """How one collection's payloads are written.

    Attributes:
        keys: the keys indexed through ``FACETS`` (``facet_keys``).
        present: of ``keys``, those marked when they hold a value rather than when empty.
            A shard records the set it was created with: a shard written before this
            layout has none, and keeps its empty markers.
        packed: the keys kept in ``DOC``; a filter on one is refused.
        in_doc: a facet key's scalar value is kept in ``DOC`` as well as in its token, so
            reads need not parse the tokens. A shard written before has it in its token only.
        tokens: how ``FACETS`` holds the tokens: ``"list"`` of strings under a keyword
            index, ``"uints"``: their non-negative hashes (``hashed``) under an integer
            index, ``"ints"``: signed ones (shards written before), ``"text"``: one string
            of hashed words under a text index. Other than ``"list"`` only with ``in_doc``.
        marked: datetime keys without an index of their own: a record holding one carries
            a ``present`` token, and a range on one is checked on the marked records only
            (``IndexSpec.marked``). A shard written before has none: it keeps the index.
    """

    keys: frozenset[str] = frozenset()
    present: frozenset[str] = frozenset()
    packed: frozenset[str] = frozenset()
    in_doc: bool = False
    tokens: str = "list"
    marked: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        spec: IndexSpec,
        present: Iterable[str] | None = None,
        in_doc: bool = True,
        tokens: str = "uints",
        marked: Iterable[str] | None = None,
    ) -> Layout:
        """The layout of ``spec``; ``present``, ``in_doc``, ``tokens``, ``marked``: what a
        shard recorded (default: today's layout)."""
        keys = facet_keys(spec)
        optional = spec.optional if present is None else present
        form = tokens if in_doc else "list"
        dates = frozenset(spec.marked if marked is None else marked) & set(spec.datetime)
        return cls(keys, frozenset(optional) & keys, frozenset(spec.packed), in_doc, form, dates)

    @property
    def hashed(self) -> bool:
        """Whether the tokens are stored as hashes (counted by value from ``DOC``)."""
        return self.tokens != "list"

    def hashes(self, tokens: Collection[str]) -> list[int]:
        """``tokens`` as the integers ``FACETS`` holds (``tokens`` ``"uints"`` or ``"ints"``).
        Many at once are hashed without the cache (``hashed``): they are the ids of a page of
        memories, each met once (an export's audit steps by ``atom_id``, 4,096 a page), for
        which the cache's misses cost as much as the hashes and evict the tokens that repeat."""
        signed = self.tokens == "ints"
        if len(tokens) > _CACHED_UP_TO:
            return [_hash(t, signed) for t in tokens]
        to_int = _signed if signed else _unsigned
        return [to_int(t) for t in tokens]

    # -- the store port's ``PayloadForm`` ---------------------------------------------------

    def lay_out(self, payload: dict[str, Any]) -> dict[str, Any]:
        return stored(payload, self)

    def as_laid(self, laid: dict[str, Any]) -> dict[str, Any]:
        return Laid(laid, self)

    def read_back(self, laid: dict[str, Any]) -> dict[str, Any]:
        return restore(dict(laid))

    @functools.cached_property
    def _marks(self) -> tuple[tuple[str, str, bool], ...]:
        """Per facet key: the key, its marker token, and whether that marks it empty (else
        holding a value, ``present``); made once, not for every payload written."""
        return tuple(
            (key, present(key), False) if key in self.present else (key, empty(key), True)
            for key in self.keys
        )


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
    a token of another key or a marker."""
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


def present(key: str) -> str:
    """The facet of ``key`` holding a value, for the keys of ``Layout.present``."""
    return f"{key}\x1d"


def hashed(facet: str, signed: bool = False) -> int:
    """A token as a non-negative 63-bit integer (``Layout.tokens == "uints"``), or with
    ``signed`` as a signed 64-bit one (``"ints"``: shards written before). Cached: most of a
    memory's tokens (tenant, app, layer, status, ...) are the same for thousands of them, and
    hashing the nine of an imported memory was ~9 us of its ~350 (bench/README.md). Small:
    the tokens met once (content hash, chain root) pass through, the repeated ones stay (a
    cache of 65,536 held ~20 MB more in a process that loads 100k memories)."""
    return _signed(facet) if signed else _unsigned(facet)


_CACHED_UP_TO = 64  # tokens of one condition hashed through the cache


def _hash(facet: str, signed: bool) -> int:
    value = int.from_bytes(_digest(facet), "little", signed=signed)
    return value if signed else value >> 1


@functools.lru_cache(maxsize=1024)
def _signed(facet: str) -> int:
    return _hash(facet, True)


@functools.lru_cache(maxsize=1024)
def _unsigned(facet: str) -> int:
    return _hash(facet, False)


def word(facet: str) -> str:
    """A token as one word of a ``"text"`` string: 16 hex digits of its hash, so no
    value's spaces or case can split or change it."""
    return _digest(facet).hex()


def _digest(facet: str) -> bytes:
    return hashlib.blake2b(facet.encode(), digest_size=8).digest()


def values_of(key: str, payload: dict[str, Any]) -> list[str | int | bool]:
    """The values of ``key`` in a restored payload that a facet token would hold."""
    value = payload.get(key)
    items = value if isinstance(value, list) else (value,)
    return [v for v in items if isinstance(v, str | int)]  # bool is an int


def facets(payload: dict[str, Any], layout: Layout) -> list[str]:
    out: list[str] = []
    for key, mark, when_empty in layout._marks:
        value = payload.get(key)
        if value is None or value == []:
            if when_empty:
                out.append(mark)
            continue
        if not when_empty:
            out.append(mark)
        for item in value if isinstance(value, list) else (value,):
            if (t := token(key, item)) is not None:
                out.append(t)
    if layout.marked:
        out += [present(key) for key in layout.marked if payload.get(key) not in (None, [])]
    return out


class Laid(dict[str, Any]):
    """What ``stored`` made of a payload for ``layout``, made elsewhere (an import lays its
    memories out in a worker process, ``memhub.engine.transfer._import_pipe``): ``stored`` passes it
    through when the shard's layout is still that very one."""

    __slots__ = ("layout",)

    def __init__(self, payload: dict[str, Any], layout: Layout) -> None:
        super().__init__(payload)
        self.layout = layout


def stored(payload: dict[str, Any], layout: Layout) -> dict[str, Any]:
    """``payload`` as ``EdgeStore`` writes it (see the module docstring)."""
    if type(payload) is Laid:
        if payload.layout is layout:
            return payload
        payload = restore(dict(payload))  # laid out for a layout the shard no longer has
    out: dict[str, Any] = {}
    doc: dict[str, Any] = {}
    keys, packed, in_doc = layout.keys, layout.packed, layout.in_doc
    for key, value in payload.items():
        if key in packed:
            doc[key] = value
        elif key not in keys or not isinstance(value, str | int):  # bool is an int
            out[key] = value
        elif in_doc:
            doc[key] = value
    if doc:
        out[DOC] = orjson.dumps(doc).decode()
    if keys or layout.marked:
        tokens = facets(payload, layout)
        if layout.tokens in ("uints", "ints"):
            out[FACETS] = layout.hashes(tokens)
        else:
            out[FACETS] = " ".join(map(word, tokens)) if layout.tokens == "text" else tokens
    return out


def restore(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` as read from a shard, put back (in place) as it was given to ``stored``.
    A facet key already there (from ``DOC``) is not read from its token again."""
    doc = payload.pop(DOC, None)
    if doc is not None:
        payload.update(orjson.loads(doc))
    tokens = payload.pop(FACETS, None)
    if not isinstance(tokens, list) or (tokens and not isinstance(tokens[0], str)):
        return payload  # none, or hashes of them (``Layout.hashed``): the values are in DOC
    for t in tokens:
        key, sep, rest = t.partition("\x1f")
        if sep and rest and key not in payload:
            kind, text = rest[0], rest[1:]
            payload[key] = text if kind == "s" else (text == "1" if kind == "b" else int(text))
    return payload
