"""How ``EdgeStore`` lays out a payload (``memhub.store.facets``): fewer values written,
the same payload read back, the same filters answered, in old shards too."""

from __future__ import annotations

import copy
import json
import pickle
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
import qdrant_edge as qe

from memhub.store import edge
from memhub.store.base import DateRange, IsEmpty, Match, MatchAny, StoredPoint, Where, every
from memhub.store.edge import EdgeStore
from memhub.store.facets import (
    DOC,
    FACETS,
    Layout,
    empty,
    facets,
    hashed,
    present,
    stored,
    token,
    word,
)
from memhub.store.schema import INDEXES
from memhub.testing.stored import read_stored, write_stored

MEMORY = {
    "id": "01HK0000000000000000000000",
    "content": "the deploy runs on Fridays",
    "layer": "fact",
    "status": "active",
    "tenant": "local",
    "user_id": "u1",
    "app_id": "",  # an empty string has a token of its own
    "rev": 3,
    "version": 2,
    "epistemic": "actual",
    "session_id": None,  # kept as null, not dropped
    "ns_prefixes": ["a"],  # a list: kept as a list, not as its one element
    "procedure": {"task": "deploy", "search_keys": ["ci"]},
    "metadata": {"topic": "ops", "n": 1.5},
    "evidence": [],
    "ak": ["k1", "k2"],
}


PREVIOUS = {name: Layout.of(spec, in_doc=False, marked=()) for name, spec in INDEXES.items()}
WORDS = {name: Layout.of(spec, tokens="text", marked=()) for name, spec in INDEXES.items()}


@pytest.fixture
async def store(tmp_path):
    """A Qdrant Edge store of 4-d vectors in a temp dir, closed after the test."""
    opened = EdgeStore(tmp_path / "s")
    await opened.open(4)
    yield opened
    await opened.close()


def pid(i: int) -> str:
    return f"00000000-0000-0000-0000-{i:012d}"


def _has(raw: dict, facet: str) -> bool:
    """Whether a stored payload holds ``facet``: in a list of tokens, of their hashes
    (today's layout; signed in an earlier one), or as a word of one string of hashes
    (``"text"``)."""
    tokens = raw[FACETS]
    if isinstance(tokens, str):
        return word(facet) in tokens.split()
    return facet in tokens or hashed(facet) in tokens or hashed(facet, signed=True) in tokens


async def _raw(store: EdgeStore, point_id: str, collection: str = "memories") -> dict:
    return await read_stored(store, collection, point_id)


async def test_a_payload_reads_back_as_written_from_fewer_stored_values(store):
    await store.upsert("memories", [StoredPoint(pid(1), dict(MEMORY), [1.0, 0, 0, 0])])
    (back,) = await store.retrieve("memories", [pid(1)])
    assert back.payload == MEMORY

    raw = await _raw(store, pid(1))
    # a facet key's scalar lives in its token only; a list or null stays a field
    assert not {"layer", "status", "tenant", "app_id", "epistemic"} & raw.keys()
    assert raw["ns_prefixes"] == ["a"] and raw["session_id"] is None
    # the keys no filter names are one JSON string
    assert not {"content", "version", "procedure"} & raw.keys() and DOC in raw
    # a key most memories lack is marked when it holds a value, not when empty
    assert _has(raw, present("ns_prefixes"))
    assert not _has(raw, empty("agent_id")) and not _has(raw, present("agent_id"))
    assert _has(raw, empty("session_id"))  # not one of them: marked when empty

    await store.replace_payload("memories", pid(1), {**MEMORY, "agent_id": "bot"})
    (back,) = await store.retrieve("memories", [pid(1)])
    assert back.payload == {**MEMORY, "agent_id": "bot"}


async def test_a_filter_on_a_packed_key_is_refused(store):
    with pytest.raises(TypeError, match="'content' is kept packed"):
        await store.count("memories", Where(must=(Match("content", "x"),)))
    with pytest.raises(TypeError, match="'polarity' is kept packed"):
        await store.facet("memories", "polarity")


async def _agents(store: EdgeStore) -> tuple[set[str], set[str]]:
    none = Where(must=(IsEmpty("agent_id"),))
    some = Where(must_not=(IsEmpty("agent_id"),))
    first = {p.id for p in (await store.scroll("memories", none, limit=10))[0]}
    second = {p.id for p in (await store.scroll("memories", some, limit=10))[0]}
    return first, second


async def _made_in(
    layouts: dict[str, Layout], path: Path, monkeypatch, points: list[StoredPoint] = ()
) -> None:
    """A store created (not copied from the tests' template) by a memhub whose layouts
    were ``layouts``, holding ``points``."""
    path.mkdir()
    with monkeypatch.context() as previous:
        previous.setattr(edge, "_KEYS", layouts)
        store = EdgeStore(path)
        await store.open(4)
        await store.upsert("memories", list(points))
        await store.close()


async def test_a_shard_from_before_layouts_keeps_its_markers_until_compacted(tmp_path, monkeypatch):
    await _made_in(PREVIOUS, tmp_path / "s", monkeypatch)
    (tmp_path / "s" / "memories" / "memhub_layout.json").unlink()  # as an older memhub left it

    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        points = [
            StoredPoint(pid(1), {"user_id": "u", "agent_id": "bot"}, [1.0, 0, 0, 0]),
            StoredPoint(pid(2), {"user_id": "u"}, [0, 1.0, 0, 0]),
        ]
        await store.upsert("memories", points)
        assert _has((await _raw(store, pid(2))), empty("agent_id"))  # its own layout
        assert await _agents(store) == ({pid(2)}, {pid(1)})

        await store.compact()
        assert not _has(await _raw(store, pid(2)), empty("agent_id"))
        assert _has((await _raw(store, pid(1))), present("agent_id"))
        assert await _agents(store) == ({pid(2)}, {pid(1)})
    finally:
        await store.close()
    store = EdgeStore(tmp_path / "s")  # the layout is recorded: a new process reads it
    await store.open(4)
    try:
        assert await _agents(store) == ({pid(2)}, {pid(1)})
    finally:
        await store.close()


CHECKPOINT = {
    "kind": "checkpoint",
    "thread_id": "t1",
    "checkpoint_ns": "",
    "checkpoint_id": "c2",
    "parent_checkpoint_id": "c1",
    "seq": 7,
    "run_id": None,
    "versions": [["count", "00000000000000000000000000000002.0.1"]],
    "checkpoint": {"t": "msgpack", "b": "gqJpZKJjMg=="},
    "metadata": {"t": "msgpack", "b": "gaRzdGVwAQ=="},
    "tenant": "local",
}


async def test_a_checkpoint_is_written_as_few_values_and_an_older_one_reads_back_the_same(
    store,
):
    """A checkpointed graph step writes several checkpoint points; the binding converts each
    payload value on its own, so the values no filter reads travel as one string."""
    await store.upsert("checkpoints", [StoredPoint(pid(1), dict(CHECKPOINT))])
    raw = await _raw(store, pid(1), "checkpoints")
    assert not {"versions", "checkpoint", "metadata", "parent_checkpoint_id"} & raw.keys()
    assert DOC in raw

    # as memhub wrote checkpoints before: every field as given, the parent as a facet
    layout = store.layout("checkpoints")
    old = replace(layout, keys=layout.keys | {"parent_checkpoint_id"})
    point = qe.Point(pid(2), {}, stored({**CHECKPOINT, "checkpoint_id": "c3"}, old))
    await write_stored(store, "checkpoints", [point])

    back = {p.id: p.payload for p in await store.retrieve("checkpoints", [pid(1), pid(2)])}
    assert back == {pid(1): CHECKPOINT, pid(2): {**CHECKPOINT, "checkpoint_id": "c3"}}
    found, _ = await store.scroll(
        "checkpoints", Where(must=(Match("thread_id", "t1"), Match("kind", "checkpoint")))
    )
    assert {p.id for p in found} == {pid(1), pid(2)}


async def test_facet_values_are_kept_in_the_doc_and_their_tokens_are_integer_hashes(store):
    await store.upsert("memories", [StoredPoint(pid(1), dict(MEMORY), [1.0, 0, 0, 0])])
    raw = await _raw(store, pid(1))
    doc = orjson.loads(raw[DOC])
    assert doc["layer"] == "fact" and doc["tenant"] == "local" and doc["app_id"] == ""
    assert _has(raw, token("layer", "fact"))  # still filtered through its token
    # integers: each converts in a third of a string's time
    assert raw[FACETS] and all(isinstance(t, int) for t in raw[FACETS])
    (back,) = await store.retrieve("memories", [pid(1)])
    assert back.payload == MEMORY
    assert await store.count("memories", Where(must=(Match("layer", "fact"),))) == 1


POINTS = [
    StoredPoint(pid(1), dict(MEMORY), [1.0, 0, 0, 0]),
    StoredPoint(pid(2), {**MEMORY, "id": "b", "layer": "raw", "agent_id": "bot"}, [0, 1.0, 0, 0]),
    StoredPoint(pid(3), {**MEMORY, "id": "c", "status": "superseded", "session_id": "s"}),
]
FILTERS = [
    Where(must=(Match("layer", "fact"),)),
    Where(must=(MatchAny("layer", ("raw", "profile")),)),
    Where(must=(Match("status", "active"), IsEmpty("agent_id"))),
    Where(must_not=(IsEmpty("agent_id"),)),
    Where(must=(IsEmpty("session_id"),)),
    Where(should=(Match("session_id", "s"), Match("agent_id", "bot"))),
    Where(must=(Match("app_id", ""), Match("ns_prefixes", "a"))),
]


async def _answers(store: EdgeStore) -> list:
    found = [
        sorted(p.id for p in (await store.scroll("memories", f, limit=10))[0]) for f in FILTERS
    ]
    return [*found, await store.facet("memories", "layer"), await store.facet("memories", "status")]


@pytest.mark.parametrize(
    "layouts, recorded",
    [
        (PREVIOUS, lambda present: {"present": present}),
        (WORDS, lambda present: {"present": present, "in_doc": True, "text": True}),
    ],
    ids=["keyword tokens, values in tokens", "hashed words under a text index"],
)
async def test_a_shard_in_an_earlier_layout_reads_back_alike(
    tmp_path, monkeypatch, layouts, recorded
):
    """A shard written in an earlier layout (as the memhub of then recorded it): the same
    payloads, filters and counts, before and after ``compact()`` brings it to today's."""
    await _made_in(layouts, tmp_path / "s", monkeypatch, POINTS)
    recorded_at = tmp_path / "s" / "memories" / "memhub_layout.json"
    present = json.loads(recorded_at.read_text())["present"]
    recorded_at.write_text(json.dumps(recorded(present)))

    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        raw = await _raw(store, pid(1))
        assert _has(raw, token("layer", "fact"))
        assert ("layer" in orjson.loads(raw[DOC])) == (layouts is WORDS)
        assert await store.retrieve("memories", [p.id for p in POINTS]) == POINTS_READ
        before = await _answers(store)
        assert before[:3] == [[pid(1), pid(3)], [pid(2)], [pid(1)]]

        await store.compact()
        raw = await _raw(store, pid(1))
        assert orjson.loads(raw[DOC])["layer"] == "fact"
        layout = store.layout("memories")
        assert raw[FACETS] == layout.hashes(facets(MEMORY, layout))
        assert await store.retrieve("memories", [p.id for p in POINTS]) == POINTS_READ
        assert await _answers(store) == before
    finally:
        await store.close()


POINTS_READ = [StoredPoint(p.id, p.payload) for p in POINTS]

SIGNED = {name: Layout.of(spec, tokens="ints") for name, spec in INDEXES.items()}


async def _tokens(store: EdgeStore) -> list[int]:
    return [t for p in POINTS for t in (await _raw(store, p.id))[FACETS]]


async def test_tokens_are_non_negative_and_a_shard_of_signed_ones_keeps_them(tmp_path, monkeypatch):
    """The binding tries a payload value as each type in turn and a negative integer misses
    once more than a positive one, so today's tokens are non-negative hashes. A shard
    written with signed ones (recorded ``"ints"``) keeps them and answers the same filters
    and counts, until ``compact()`` rewrites it in today's layout."""
    store = EdgeStore(tmp_path / "new")
    await store.open(4)
    try:
        await store.upsert("memories", POINTS)
        assert all(t >= 0 for t in await _tokens(store))
        expected = await _answers(store)
    finally:
        await store.close()

    await _made_in(SIGNED, tmp_path / "s", monkeypatch, POINTS)
    recorded = json.loads((tmp_path / "s" / "memories" / "memhub_layout.json").read_text())
    assert recorded["tokens"] == "ints"
    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        assert any(t < 0 for t in await _tokens(store))  # as that memhub wrote them: still there
        assert await store.retrieve("memories", [p.id for p in POINTS]) == POINTS_READ
        assert await _answers(store) == expected
        await store.upsert("memories", [replace(POINTS[0], payload={**MEMORY, "layer": "raw"})])
        assert (await _answers(store))[1] == [pid(1), pid(2)]  # written signed, found

        await store.compact()
        assert all(t >= 0 for t in await _tokens(store))
        assert (await _answers(store))[1] == [pid(1), pid(2)]
    finally:
        await store.close()


async def test_a_new_memories_shard_builds_six_indexes_and_rev_still_filters(store):
    """Each index is a pass over every payload when a segment is built: ``rev``, filtered
    only by conditional writes that name their point, has none, nor has ``expires_at``
    (``test_expiry_is_found_by_its_mark_and_an_older_shard_by_its_index``). Valid time has
    two: without them an ``as_of`` read took 9.7x a plain one (bench/time_bench.py)."""
    schema = (await store.shard_info("memories")).indexes
    assert set(schema) == {"ak", "user_id", FACETS, "created_at", "valid_from", "valid_to"}
    assert schema["user_id"] == "keyword" and schema["created_at"] == "datetime"
    await store.upsert("memories", [StoredPoint(pid(1), dict(MEMORY), [1.0, 0, 0, 0])])
    stale = StoredPoint(pid(1), {**MEMORY, "rev": 4}, [1.0, 0, 0, 0])
    await store.upsert("memories", [stale], only_if=Where(must=(Match("rev", 2),)))
    assert (await store.retrieve("memories", [pid(1)]))[0].payload["rev"] == 3
    assert await store.count("memories", Where(must=(Match("rev", 3),))) == 1


EXPIRING = [
    StoredPoint(pid(1), {**MEMORY, "expires_at": "2024-01-01T00:00:00Z"}, [1.0, 0, 0, 0]),
    StoredPoint(pid(2), {**MEMORY, "expires_at": "2030-01-01T00:00:00Z"}, [0, 1.0, 0, 0]),
    StoredPoint(pid(3), dict(MEMORY), [0, 0, 1.0, 0]),
]
EXPIRY_FILTERS = [
    Where(must=(Match("tenant", "local"), DateRange("expires_at", lte="2025-01-01T00:00:00Z"))),
    Where(must=(DateRange("expires_at", gte="2025-01-01T00:00:00Z"),)),
    Where(must=(IsEmpty("expires_at"),)),
    Where(must_not=(IsEmpty("expires_at"),)),
]


async def _expiring(store: EdgeStore) -> list[list[str]]:
    return [
        sorted(p.id for p in (await store.scroll("memories", f, limit=10))[0])
        for f in EXPIRY_FILTERS
    ]


async def test_expiry_is_found_by_its_mark_and_an_older_shard_by_its_index(tmp_path, monkeypatch):
    """``expires_at`` (LangGraph items with a TTL) has no index: a record holding one is
    marked, and a range on it is checked on the marked ones. A shard from before keeps its
    index and answers alike, before and after ``compact()``."""
    expected = [[pid(1)], [pid(2)], [pid(3)], [pid(1), pid(2)]]
    store = EdgeStore(tmp_path / "new")
    await store.open(4)
    try:
        await store.upsert("memories", EXPIRING)
        assert _has(await _raw(store, pid(1)), present("expires_at"))
        assert await _expiring(store) == expected
        await store.optimize()
        assert await _expiring(store) == expected
    finally:
        await store.close()

    await _made_in(PREVIOUS, tmp_path / "old", monkeypatch, EXPIRING)
    store = EdgeStore(tmp_path / "old")
    await store.open(4)
    try:
        schema = (await store.shard_info("memories")).indexes
        assert "expires_at" in schema
        assert await _expiring(store) == expected
        await store.compact()
        schema = (await store.shard_info("memories")).indexes
        assert "expires_at" not in schema
        assert await _expiring(store) == expected
        assert await store.retrieve("memories", [p.id for p in EXPIRING]) == [
            StoredPoint(p.id, p.payload) for p in EXPIRING
        ]
    finally:
        await store.close()


async def test_many_values_are_matched_alike_hashed_with_or_without_the_cache(store):
    """A condition on many values (an export asks for the audit steps of a page of 4,096
    memories by ``atom_id``) hashes them without the cache: it finds what a few values do."""
    await store.upsert(
        "events",
        [StoredPoint(pid(i), {"atom_id": f"a{i}", "kind": "status"}) for i in range(300)],
    )
    asked = tuple(f"a{i}" for i in range(0, 600, 2))  # 300 values, half of them held
    found = await every(store, "events", Where(must=(MatchAny("atom_id", asked),)))
    assert sorted(p.payload["atom_id"] for p in found) == sorted(f"a{i}" for i in range(0, 300, 2))
    tokens = [token("atom_id", v) for v in asked]
    for layout in (Layout.of(INDEXES["events"]), Layout.of(INDEXES["events"], tokens="ints")):
        assert layout.hashes(tokens) == [h for t in tokens for h in layout.hashes([t])]


async def test_a_point_read_back_compares_copies_and_pickles_as_a_stored_point(store):
    """A point read from a shard spells its id only when asked (an export never asks for a
    memory's); it is still equal to, copied and pickled as a plain ``StoredPoint``."""
    await store.upsert("memories", [StoredPoint(pid(1), dict(MEMORY), [1.0, 0, 0, 0])])
    (back,) = await store.retrieve("memories", [pid(1)])
    plain = StoredPoint(pid(1), MEMORY)
    assert back == plain and plain == back and back != StoredPoint(pid(2), MEMORY)
    assert type(pickle.loads(pickle.dumps(back))) is StoredPoint
    assert copy.copy(back) == plain and back.id == pid(1)
