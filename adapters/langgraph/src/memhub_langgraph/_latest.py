"""The latest checkpoint of each thread, kept by the checkpointer while no one else writes.

Every ``graph.invoke`` starts with ``get_tuple`` of its thread's latest checkpoint,
on the caller's thread, before anything runs. Read from the store that is four
calls (the newest checkpoint, whether unordered ids exist, its channel values, its
pending writes), each a hand-off to the engine's loop and on to the store's worker
thread and back: 1.4 ms idle, most of it the hand-offs, where ``InMemorySaver``
takes 0.02 ms (``bench/langgraph_bench.py``). So the checkpointer keeps, per
``(thread_id, checkpoint_ns)``, the payloads of the latest checkpoint, of the
channel values it refers to and of its pending writes, as the store holds them, and
answers ``get_tuple`` from them without leaving the caller's thread.

That is right only while the store changes by this checkpointer's own writes, which it
applies to what it keeps. The record API counts every write to the checkpoint
collections made through any client of the engine, and every opening of the store
(``Records.writes``, from the store's own count: ``EdgeStore.changes``); the
checkpointer counts its own. An entry is served only while the difference (the writes of
others) is what it was when the entry was last known true. So another checkpointer on
the same store, a hub serving other processes, a write that failed halfway, or this
checkpointer's own maintenance calls all make every entry a miss, read again from the
store. ``Records.writes`` is ``None`` where other processes can write (a Qdrant server,
a store reached through the hub), and a server's record API (``RemoteRecords``) has no
count at all: there nothing is kept. A write is counted, and counted as the
checkpointer's own, together: on the engine's loop in the step in which it returns (the
async face), or on the writing thread under the store's count lock (the sync face,
``Records.put_now``). So where the count changes the difference is exact; read anywhere
else it can only come out too high (a miss). The entries themselves change under a lock
of their own, since LangGraph writes from several threads at once.

Pending writes may be stored before their checkpoint: LangGraph saves a step's
checkpoint and its tasks' writes from different threads. While an entry is kept,
writes for a checkpoint newer than its latest are kept aside with it (``early``) until
that checkpoint is put. An entry moves on to a new checkpoint only if the checkpoint's
id is a uuid6 made after the entry was read (LangGraph makes one per checkpoint, in
increasing order within a process): every write for it came after the read, so it was
seen. Otherwise the entry is dropped and the next ``get_tuple`` reads the store.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langgraph.checkpoint.base.id import uuid6

from memhub.records import Records
from memhub.store.base import StoredPoint
from memhub_langgraph._codec import blob_ids, seq

Key = tuple[str, str]  # (thread_id, checkpoint_ns)
Payload = Mapping[str, Any]
_EARLY_LIMIT = 64  # checkpoint ids with early writes per entry; past it the entry is dropped


@dataclass(frozen=True)
class Latest:
    """One thread namespace's latest checkpoint as the store holds it (all stored payloads);
    ``checkpoint`` is ``None`` while the thread namespace has none."""

    checkpoint: Payload | None
    blobs: Mapping[str, Payload]  # point id -> blob, for each channel version it refers to
    writes: Mapping[str, Payload]  # point id -> pending write
    others: int  # the writes of others counted when this was last known true
    since: str  # a uuid6 made just before it was read: newer checkpoint ids came after
    early: Mapping[str, Mapping[str, Payload]] = field(default_factory=dict)  # id -> writes

    @property
    def checkpoint_id(self) -> str:
        return self.checkpoint["checkpoint_id"] if self.checkpoint is not None else ""


@dataclass
class _Fill:
    key: Key
    disturbed: bool = field(default=False)


class LatestCache:
    """The latest checkpoint per thread namespace (see the module docstring).

    Args:
        records: the client's record API.
        size: how many thread namespaces to keep, the most recently written.
    """

    def __init__(self, records: Any, size: int = 1024) -> None:
        self._records = records
        self._size = size
        self._entries: OrderedDict[Key, Latest] = OrderedDict()
        self._mine = 0  # this checkpointer's writes to the checkpoint collections
        self._fills: list[_Fill] = []
        self._lock = threading.Lock()  # over _entries, _mine and _fills; never held across a wait

    def _others(self) -> int | None:
        if not isinstance(self._records, Records):  # a server's: others write there too
            return None
        mine = self._mine  # first: a write counted after it makes the difference larger
        total = 0
        for collection in ("checkpoints", "checkpoint_writes"):
            count = self._records.writes(collection)
            if count is None:
                return None
            total += count
        return total - mine

    def get(self, key: Key) -> Latest | None:
        """The kept latest checkpoint of ``key`` if it is still what the store holds (any
        thread)."""
        entry = self._entries.get(key)
        if entry is None or entry.others != self._others():
            return None
        return entry

    # -- as the store is read and written ----------------------------------------------------

    async def read(self, key: Key, read: Callable[[], Any]) -> Any:
        """``await read()``: the latest checkpoint of ``key`` from the store (its payload, and
        its blobs and pending writes by point id) or ``None``; kept if nothing was written
        to ``key`` meanwhile."""
        before = self._others()
        if before is None:
            return await read()
        since = str(uuid6())
        with self._filling(key) as fill:
            found = await read()
        self._filled(key, fill, before, since, found)
        return found

    def none_now(self, key: Key, read: Callable[[], Sequence[Any] | None]) -> bool:
        """Whether ``read()``, a page of ``key``'s checkpoints read on this thread (``None``
        where it cannot be read so), found none; kept as ``read`` keeps it. The first step
        of a new thread learns so without the engine's loop."""
        before = self._others()
        if before is None:
            return False
        since = str(uuid6())
        with self._filling(key) as fill:
            page = read()
        if page is None or len(page) > 0:
            return False
        self._filled(key, fill, before, since, None)
        return True

    @contextlib.contextmanager
    def _filling(self, key: Key) -> Iterator[_Fill]:
        """A read of ``key`` in progress: a write to ``key`` meanwhile marks it disturbed."""
        fill = _Fill(key)
        with self._lock:
            self._fills.append(fill)
        try:
            yield fill
        finally:
            with self._lock:
                self._fills.remove(fill)

    def _filled(self, key: Key, fill: _Fill, before: int, since: str, found: Any) -> None:
        with self._lock:
            if not fill.disturbed and self._others() == before:
                payload, blobs, writes = found or (None, {}, {})
                self._keep(key, Latest(payload, blobs, writes, before, since))

    def put_done(self, key: Key, payload: Payload, blobs: Mapping[str, Payload]) -> None:
        """Call right after a checkpoint (``payload``) and its new ``blobs`` were stored."""
        with self._lock:
            self._put_done(key, payload, blobs)

    def _put_done(self, key: Key, payload: Payload, blobs: Mapping[str, Payload]) -> None:
        self._mine += 1
        self._disturb(key)
        entry = self._valid(key)
        if entry is None:
            return
        checkpoint_id, latest = payload["checkpoint_id"], entry.checkpoint_id
        early = {c: w for c, w in entry.early.items() if c != checkpoint_id}
        if checkpoint_id < latest:  # an older one: only the channel values it shares matter
            shared = {pid: b for pid, b in blobs.items() if pid in entry.blobs}
            self._keep(key, replace(entry, blobs={**entry.blobs, **shared}, early=early))
            return
        known, needed = {**entry.blobs, **blobs}, blob_ids(payload)
        if not needed <= known.keys() or (
            checkpoint_id > latest and not _made_after(checkpoint_id, entry.since)
        ):  # a value of a checkpoint not kept, or writes for it may predate the entry
            self._entries.pop(key, None)
            return
        writes = entry.writes if checkpoint_id == latest else entry.early.get(checkpoint_id, {})
        later = {c: w for c, w in early.items() if c > checkpoint_id}
        kept = Latest(payload, {p: known[p] for p in needed}, writes, entry.others, entry.since)
        self._keep(key, replace(kept, early=later))

    def writes_done(
        self, key: Key, checkpoint_id: str, points: Sequence[StoredPoint], *, insert_only: bool
    ) -> None:
        """Call right after pending writes were stored (``insert_only``: existing ones kept)."""
        with self._lock:
            self._writes_done(key, checkpoint_id, points, insert_only)

    def _writes_done(
        self, key: Key, checkpoint_id: str, points: Sequence[StoredPoint], insert_only: bool
    ) -> None:
        self._mine += 1
        self._disturb(key)

        def merged(into: Mapping[str, Payload]) -> dict[str, Payload]:
            out = dict(into)
            for p in points:
                if not (insert_only and p.id in out):
                    out[p.id] = p.payload
            return out

        entry = self._valid(key)
        if entry is None:
            return
        if entry.checkpoint_id == checkpoint_id:
            self._keep(key, replace(entry, writes=merged(entry.writes)))
        elif checkpoint_id > entry.checkpoint_id:
            if checkpoint_id not in entry.early and len(entry.early) >= _EARLY_LIMIT:
                self._entries.pop(key, None)
                return
            early = {**entry.early, checkpoint_id: merged(entry.early.get(checkpoint_id, {}))}
            self._keep(key, replace(entry, early=early))

    def forget_thread(self, thread_id: str) -> None:
        """Before and after deleting every record of a thread: nothing of it is kept."""
        with self._lock:
            for key in [k for k in self._entries if k[0] == thread_id]:
                self._entries.pop(key, None)
            for fill in self._fills:
                fill.disturbed |= fill.key[0] == thread_id

    def _disturb(self, key: Key) -> None:
        for fill in self._fills:
            fill.disturbed |= fill.key == key

    def _valid(self, key: Key) -> Latest | None:
        entry = self._entries.get(key)
        if entry is not None and entry.others != self._others():
            del self._entries[key]
            return None
        return entry

    def _keep(self, key: Key, entry: Latest) -> None:
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)


def _made_after(checkpoint_id: str, since: str) -> bool:
    """Whether ``checkpoint_id`` is a uuid6 made in this process after ``since`` was."""
    return seq(checkpoint_id) >= 0 and checkpoint_id[14] == "6" and checkpoint_id > since
