"""How ``EdgeStore`` lays out a payload (``memhub.store.facets``): fewer values written,
the same payload read back, the same filters answered, in old shards too."""

from __future__ import annotations

import pytest
import qdrant_edge as qe

from memhub.store.base import IsEmpty, Match, StoredPoint, Where
from memhub.store.edge import EdgeStore
from memhub.store.facets import DOC, FACETS, Layout, empty, present, stored

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


def pid(i: int) -> str:
    return f"00000000-0000-0000-0000-{i:012d}"


async def _raw(store: EdgeStore, point_id: str, collection: str = "memories") -> dict:
    records = await store._run(lambda: store._shard(collection).retrieve([point_id], True, False))
    return dict(records[0].payload)


async def test_a_payload_reads_back_as_written_from_fewer_stored_values(tmp_path):
    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
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
        assert present("ns_prefixes") in raw[FACETS]
        assert empty("agent_id") not in raw[FACETS] and present("agent_id") not in raw[FACETS]
        assert empty("session_id") in raw[FACETS]  # not one of them: marked when empty

        await store.replace_payload("memories", pid(1), {**MEMORY, "agent_id": "bot"})
        (back,) = await store.retrieve("memories", [pid(1)])
        assert back.payload == {**MEMORY, "agent_id": "bot"}
    finally:
        await store.close()


async def test_a_filter_on_a_packed_key_is_refused(tmp_path):
    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        with pytest.raises(TypeError, match="'content' is kept packed"):
            await store.count("memories", Where(must=(Match("content", "x"),)))
        with pytest.raises(TypeError, match="'polarity' is kept packed"):
            await store.facet("memories", "polarity")
    finally:
        await store.close()


async def _agents(store: EdgeStore) -> tuple[set[str], set[str]]:
    none = Where(must=(IsEmpty("agent_id"),))
    some = Where(must_not=(IsEmpty("agent_id"),))
    first = {p.id for p in (await store.scroll("memories", none, limit=10))[0]}
    second = {p.id for p in (await store.scroll("memories", some, limit=10))[0]}
    return first, second


async def test_a_shard_from_before_layouts_keeps_its_markers_until_compacted(tmp_path):
    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    await store.close()
    (tmp_path / "s" / "memories" / "memhub_layout.json").unlink()  # as an older memhub left it

    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        points = [
            StoredPoint(pid(1), {"user_id": "u", "agent_id": "bot"}, [1.0, 0, 0, 0]),
            StoredPoint(pid(2), {"user_id": "u"}, [0, 1.0, 0, 0]),
        ]
        await store.upsert("memories", points)
        assert empty("agent_id") in (await _raw(store, pid(2)))[FACETS]  # its own layout
        assert await _agents(store) == ({pid(2)}, {pid(1)})

        await store.compact()
        assert empty("agent_id") not in (await _raw(store, pid(2)))[FACETS]
        assert present("agent_id") in (await _raw(store, pid(1)))[FACETS]
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
    tmp_path,
):
    """A checkpointed graph step writes several checkpoint points; the binding converts each
    payload value on its own, so the values no filter reads travel as one string."""
    store = EdgeStore(tmp_path / "s")
    await store.open(4)
    try:
        await store.upsert("checkpoints", [StoredPoint(pid(1), dict(CHECKPOINT))])
        raw = await _raw(store, pid(1), "checkpoints")
        assert not {"versions", "checkpoint", "metadata", "parent_checkpoint_id"} & raw.keys()
        assert DOC in raw

        # as memhub wrote checkpoints before: every field as given, the parent as a facet
        old = Layout(store._layout("checkpoints").keys | {"parent_checkpoint_id"})
        point = qe.Point(pid(2), {}, stored({**CHECKPOINT, "checkpoint_id": "c3"}, old))
        await store._run(store._update, "checkpoints", qe.UpdateOperation.upsert_points([point]))

        back = {p.id: p.payload for p in await store.retrieve("checkpoints", [pid(1), pid(2)])}
        assert back == {pid(1): CHECKPOINT, pid(2): {**CHECKPOINT, "checkpoint_id": "c3"}}
        found, _ = await store.scroll(
            "checkpoints", Where(must=(Match("thread_id", "t1"), Match("kind", "checkpoint")))
        )
        assert {p.id for p in found} == {pid(1), pid(2)}
    finally:
        await store.close()
