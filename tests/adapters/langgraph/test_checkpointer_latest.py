"""``MemHubCheckpointer`` keeps each thread's latest checkpoint in memory
(``memhub_langgraph._latest``): a step starts without a store read, and what it is
given is what the store holds, whoever else writes."""

from __future__ import annotations

import asyncio
import operator
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.base.id import uuid6
from langgraph.graph import END, START, StateGraph

from memhub import MemoryClient
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubCheckpointer


class _State(TypedDict):
    turns: Annotated[list[str], operator.add]


def _graph(checkpointer: MemHubCheckpointer):
    builder = StateGraph(_State)
    builder.add_node("respond", lambda state: {"turns": [f"reply {len(state['turns'])}"]})
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(checkpointer=checkpointer)


def _reads(client: MemoryClient, monkeypatch) -> Counter:
    """Counts the scrolls and counts of ``client``'s engine (a checkpoint read makes both, or
    one ``scroll_now`` for a thread that has none; a write makes neither)."""
    store, calls = client.engine.store, Counter()
    for name in ("scroll", "count", "scroll_now")[: 3 if hasattr(store, "scroll_now") else 2]:
        monkeypatch.setattr(store, name, _counted(getattr(store, name), name, calls))
    return calls


def _counted(real, name: str, calls: Counter):
    def spy(*args, **kwargs):
        calls[name] += 1
        return real(*args, **kwargs)

    return spy


def _same(kept, read) -> None:
    assert kept is not None and read is not None
    assert kept.config == read.config and kept.parent_config == read.parent_config
    assert kept.checkpoint == read.checkpoint and kept.metadata == read.metadata
    assert kept.pending_writes == read.pending_writes


def _run(coro):
    with ThreadPoolExecutor(1) as pool:  # outside any test event loop
        return pool.submit(asyncio.run, coro).result()


def test_a_step_starts_from_memory_with_what_the_store_holds(make_client, monkeypatch):
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    graph, config = _graph(saver), {"configurable": {"thread_id": "t1"}}
    reads = _reads(client, monkeypatch)
    graph.invoke({"turns": ["hi"]}, config)
    for turn in range(3):
        graph.invoke({"turns": [f"turn {turn}"]}, config)
    assert reads == {"scroll_now": 1}  # only the first step read: the thread had nothing
    fresh = MemHubCheckpointer(make_client("s"))  # same store, nothing kept yet: reads it
    _same(saver.get_tuple(config), fresh.get_tuple(config))
    assert sum(reads.values()) > 0
    assert graph.get_state(config).values["turns"][-2:] == ["turn 2", "reply 7"]


def test_a_thread_found_empty_is_read_again_once_another_writer_wrote_it(make_client):
    mine, theirs = MemHubCheckpointer(make_client("s")), MemHubCheckpointer(make_client("s"))
    config = {"configurable": {"thread_id": "t1"}}
    assert mine.get_tuple(config) is None  # kept: the thread has no checkpoint
    _graph(theirs).invoke({"turns": ["from them"]}, config)
    _same(mine.get_tuple(config), theirs.get_tuple(config))


def test_another_writer_on_the_same_store_is_seen_at_once(make_client):
    mine, theirs = MemHubCheckpointer(make_client("s")), MemHubCheckpointer(make_client("s"))
    config = {"configurable": {"thread_id": "t1"}}
    _graph(mine).invoke({"turns": ["hi"]}, config)
    assert mine.get_tuple(config) is not None  # kept
    _graph(theirs).invoke({"turns": ["from them"]}, config)
    assert mine.get_tuple(config).checkpoint["channel_values"]["turns"][-2:] == [
        "from them",
        "reply 3",
    ]
    _same(mine.get_tuple(config), theirs.get_tuple(config))


def test_writes_made_while_the_store_was_closed_are_seen(make_client, tmp_path):
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    config = {"configurable": {"thread_id": "t1"}}
    _graph(saver).invoke({"turns": ["hi"]}, config)
    assert saver.get_tuple(config) is not None  # kept
    _run(client.aclose())  # the folder is free: another process could write it now

    async def elsewhere() -> None:
        async with MemoryClient(
            storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
        ) as other:
            other_saver = MemHubCheckpointer(other)
            await _graph(other_saver).ainvoke({"turns": ["meanwhile"]}, config)
            other_saver.close()

    _run(elsewhere())
    _run(client.open())  # this process holds the store again
    assert saver.get_tuple(config).checkpoint["channel_values"]["turns"][-2:] == [
        "meanwhile",
        "reply 3",
    ]
    saver.close()
    _run(client.engine.close())  # the client was closed once: its teardown leaves it be


def test_writes_stored_before_their_checkpoint_are_kept_with_it(make_client):
    """LangGraph stores a task's writes and the checkpoint they belong to from different
    threads: the writes may land first."""
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    first = empty_checkpoint()
    first_config = saver.put(config, first, {"step": 0}, {})
    assert saver.get_tuple(config).checkpoint["id"] == first["id"]  # kept
    second = {**empty_checkpoint(), "id": str(uuid6())}
    second_config = {
        "configurable": {**first_config["configurable"], "checkpoint_id": second["id"]}
    }
    saver.put_writes(second_config, [("turns", ["early"])], "task-1")
    saver.put_writes(first_config, [("turns", ["on the first"])], "task-0")
    saver.put(first_config, second, {"step": 1}, {})
    kept = saver.get_tuple(config)
    assert kept.pending_writes == [("task-1", "turns", ["early"])]
    _same(kept, MemHubCheckpointer(make_client("s")).get_tuple(config))


def test_writes_stored_before_the_thread_was_read_are_not_missed(make_client):
    """The same, but the writes and their checkpoint's id come before the saver first read
    the thread: what it kept cannot say whether writes exist, so it reads the store."""
    saver = MemHubCheckpointer(make_client("s"))
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    first = empty_checkpoint()
    first_config = saver.put(config, first, {"step": 0}, {})
    second = {**empty_checkpoint(), "id": str(uuid6())}  # made before the read below
    second_config = {
        "configurable": {**first_config["configurable"], "checkpoint_id": second["id"]}
    }
    saver.put_writes(second_config, [("turns", ["early"])], "task-1")
    assert saver.get_tuple(config).checkpoint["id"] == first["id"]  # read, then kept
    saver.put(first_config, second, {"step": 1}, {})
    assert saver.get_tuple(config).pending_writes == [("task-1", "turns", ["early"])]


def test_deleting_a_thread_forgets_it(make_client):
    saver = MemHubCheckpointer(make_client("s"))
    config = {"configurable": {"thread_id": "t1"}}
    _graph(saver).invoke({"turns": ["hi"]}, config)
    assert saver.get_tuple(config) is not None
    saver.delete_thread("t1")
    assert saver.get_tuple(config) is None


@pytest.mark.parametrize("backend", ["qdrant-local"])
def test_nothing_is_kept_where_other_processes_can_write(make_client, monkeypatch, backend):
    client = make_client("s", backend)
    saver = MemHubCheckpointer(client)
    assert client.records.writes("checkpoints") is None  # a Qdrant server is shared
    config = {"configurable": {"thread_id": "t1"}}
    _graph(saver).invoke({"turns": ["hi"]}, config)
    reads = _reads(client, monkeypatch)
    assert saver.get_tuple(config) is not None
    assert sum(reads.values()) > 0


def test_every_write_through_any_client_of_the_engine_is_counted(make_client):
    from memhub.store.base import StoredPoint

    one, two = make_client("s"), make_client("s")
    _run(one.open())
    before = two.records.writes("checkpoint_writes")
    point = StoredPoint("7d3f4b8e-2c1a-4e5f-9a6b-1c2d3e4f5a6b", {"thread_id": "t"})
    _run(one.records.put("checkpoint_writes", [point]))
    assert two.records.writes("checkpoint_writes") == before + 1
    _run(two.records.delete("checkpoint_writes", [point.id]))
    assert one.records.writes("checkpoint_writes") == before + 2
    assert two.records.writes("checkpoints") == one.records.writes("checkpoints")


class _BlockedLoop:
    """Holds the engine's loop busy (a coroutine that blocks its thread) until released."""

    def __init__(self, client: MemoryClient) -> None:
        self.started, self.release = threading.Event(), threading.Event()

        async def block() -> bool:
            self.started.set()
            return self.release.wait(3)  # False: what ran meanwhile waited for the loop

        self.done = client.engine.owner.submit(block())
        assert self.started.wait(5)

    def __enter__(self) -> _BlockedLoop:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        assert self.done.result(5), "the call waited for the engine's loop"


def test_a_sync_record_write_runs_on_the_callers_thread_tagged_and_counted(make_client):
    from memhub.store.base import StoredPoint

    client = make_client("s")
    _run(client.open())
    mine = StoredPoint("7d3f4b8e-2c1a-4e5f-9a6b-1c2d3e4f5a6b", {"thread_id": "t"})
    before, seen = client.records.writes("checkpoint_writes"), []
    with _BlockedLoop(client):  # the write needs no hand-off to the engine's loop
        assert client.records.put_now("checkpoint_writes", [mine], counted=lambda: seen.append(1))
        assert client.records.writes("checkpoint_writes") == before + 1 and seen == [1]
    (stored,) = _run(client.records.get("checkpoint_writes", [mine.id]))
    assert stored.payload == {"thread_id": "t", "tenant": client.records.tenant}


def test_a_sync_record_write_over_another_tenants_record_changes_nothing(make_client):
    from memhub.errors import InvalidInputError
    from memhub.store.base import StoredPoint

    client = make_client("s")
    _run(client.open())
    pid = "7d3f4b8e-2c1a-4e5f-9a6b-1c2d3e4f5a6b"
    theirs = StoredPoint(pid, {"thread_id": "t", "tenant": "acme"})
    _run(client.engine.store.upsert("checkpoint_writes", [theirs]))
    seen: list[int] = []
    with pytest.raises(InvalidInputError, match="another tenant"):
        client.records.put_now(
            "checkpoint_writes",
            [StoredPoint(pid, {"thread_id": "x"})],
            counted=lambda: seen.append(1),
        )
    assert seen == []  # a failed write is counted, but not as the caller's own
    (stored,) = _run(client.engine.store.retrieve("checkpoint_writes", [pid]))
    assert stored.payload["tenant"] == "acme" and stored.payload["thread_id"] == "t"


def test_a_sync_record_write_is_declined_where_other_processes_write(make_client):
    from memhub.store.base import StoredPoint

    client = make_client("s", "qdrant-local")
    _run(client.open())
    point = StoredPoint("7d3f4b8e-2c1a-4e5f-9a6b-1c2d3e4f5a6b", {"thread_id": "t"})
    assert client.records.put_now("checkpoint_writes", [point]) is False
    assert _run(client.records.get("checkpoint_writes", [point.id])) == []


def test_a_sync_step_does_not_wait_on_the_engines_loop(make_client):
    """``graph.invoke`` writes its checkpoints on LangGraph's own threads, straight into the
    store this process holds: no hand-off to the engine's loop and back for each write."""
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    graph, config = _graph(saver), {"configurable": {"thread_id": "t1"}}
    graph.invoke({"turns": ["hi"]}, config)  # the first step reads the thread, on the loop
    with _BlockedLoop(client):
        graph.invoke({"turns": ["again"]}, config)
    assert graph.get_state(config).values["turns"][-2:] == ["again", "reply 3"]


def test_a_new_threads_first_step_does_not_wait_on_the_engines_loop(make_client):
    """A new thread's ``get_tuple`` learns on the caller's thread that it has no checkpoint
    (one short read, ``Records.scroll_now``), then keeps that as any read is kept."""
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    graph = _graph(saver)
    graph.invoke({"turns": ["hi"]}, {"configurable": {"thread_id": "t0"}})
    with _BlockedLoop(client):
        for n in (1, 2):
            graph.invoke({"turns": ["hi"]}, {"configurable": {"thread_id": f"t{n}"}})
        _run(graph.ainvoke({"turns": ["hi"]}, {"configurable": {"thread_id": "t3"}}))
    for n in (1, 2, 3):
        config = {"configurable": {"thread_id": f"t{n}"}}
        assert graph.get_state(config).values["turns"] == ["hi", "reply 1"]


def test_a_sync_record_read_sees_only_the_tenants_records_and_only_where_held(make_client):
    from memhub.store.base import Match, StoredPoint, Where

    client = make_client("s")
    _run(client.open())
    where = Where(must=(Match("thread_id", "t"),))
    theirs = StoredPoint("7d3f4b8e-2c1a-4e5f-9a6b-1c2d3e4f5a6b", {"thread_id": "t", "tenant": "x"})
    _run(client.engine.store.upsert("checkpoint_writes", [theirs]))
    assert client.records.scroll_now("checkpoint_writes", where) == []
    mine = StoredPoint("0b5e7c1d-3f2a-4b6c-8d9e-0f1a2b3c4d5e", {"thread_id": "t"})
    assert client.records.put_now("checkpoint_writes", [mine])
    with _BlockedLoop(client):  # read here, not on the engine's loop
        (found,) = client.records.scroll_now("checkpoint_writes", where)
    assert found.id == mine.id and found.payload["tenant"] == client.records.tenant
    remote = make_client("s", "qdrant-local")
    _run(remote.open())
    assert remote.records.scroll_now("checkpoint_writes", where) is None


def test_an_async_step_does_not_wait_on_the_engines_loop_while_the_store_is_idle(make_client):
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    graph, config = _graph(saver), {"configurable": {"thread_id": "t1"}}
    _run(graph.ainvoke({"turns": ["hi"]}, config))
    with _BlockedLoop(client):
        _run(graph.ainvoke({"turns": ["again"]}, config))
    assert graph.get_state(config).values["turns"][-2:] == ["again", "reply 3"]


def test_an_async_write_never_waits_for_a_busy_store_on_the_callers_loop(make_client):
    from memhub.store.base import StoredPoint

    client = make_client("s")
    _run(client.open())
    busy, release = threading.Event(), threading.Event()

    def hold(_stored: object) -> None:  # a write's check runs where the write does
        busy.set()
        release.wait(5)

    other = StoredPoint("0b5e9c1d-6f2a-4b3c-8d7e-9f0a1b2c3d4e", {"thread_id": "o"})
    writer = threading.Thread(
        target=client.engine.store.upsert_now,
        args=("checkpoint_writes", [other]),
        kwargs={"check": hold},
    )
    writer.start()  # the store is busy with another write
    point = StoredPoint("7d3f4b8e-2c1a-4e5f-9a6b-1c2d3e4f5a6b", {"thread_id": "t"})
    try:
        assert busy.wait(5)
        before = client.records.writes("checkpoint_writes")
        assert client.records.put_now("checkpoint_writes", [point], wait=False) is False
        assert client.records.writes("checkpoint_writes") == before  # nothing was written
    finally:
        release.set()
        writer.join()
    assert client.records.put_now("checkpoint_writes", [point], wait=False) is True


class _FanState(TypedDict):
    turns: Annotated[list[str], operator.add]


def test_parallel_tasks_writing_at_once_keep_what_is_kept_exact(make_client, monkeypatch):
    """Eight nodes of one super-step store their writes from eight threads at once, beside
    the checkpoint's own put: what the saver keeps stays what the store holds."""
    client = make_client("s")
    saver = MemHubCheckpointer(client)
    builder = StateGraph(_FanState)
    for i in range(8):
        builder.add_node(f"n{i}", lambda state, i=i: {"turns": [f"n{i}"]})
        builder.add_edge(START, f"n{i}")
        builder.add_edge(f"n{i}", END)
    graph, config = builder.compile(checkpointer=saver), {"configurable": {"thread_id": "t1"}}
    reads = _reads(client, monkeypatch)
    for turn in range(6):
        graph.invoke({"turns": [f"turn {turn}"]}, config)
        _same(saver.get_tuple(config), MemHubCheckpointer(client).get_tuple(config))
    assert len(graph.get_state(config).values["turns"]) == 6 * 9
    kept_reads = reads["count"] - 6  # each fresh saver above read the store once
    assert kept_reads <= 1  # the saver itself read it only for the thread's first step
