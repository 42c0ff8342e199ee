"""``EdgeStore``: the embedded default, Qdrant Edge running inside this process.

Each collection is one Edge shard in its own folder under ``storage_dir``. Every
call into the binding runs on one worker thread of the store, never on the
engine's event loop: one thread keeps the binding's calls serial, and the loop
stays free for the model calls and queries of other callers meanwhile.

The binding holds the GIL while it works (measured: an ``optimize()`` of 10k
384-d points took 7 s during which another Python thread ran once), so a long
index build still pauses the process; it is never awaited by the write that
triggers it, and ``close()`` finishes it.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import qdrant_edge as qe

from memhub.errors import EmbedderMismatchError, MemHubError
from memhub.store import _migrations, _readahead, facets
from memhub.store._edge_codec import (
    edge_filter,
    from_record,
    fusion,
    point_id,
    to_edge_filter,
    to_point,
)
from memhub.store._lock import DirLock
from memhub.store._serial import SerialWorker
from memhub.store.base import (
    BM25,
    DENSE,
    Collection,
    IndexSpec,
    ScoredPoint,
    SparseVector,
    StoredPoint,
    Where,
)
from memhub.store.facets import Layout
from memhub.store.schema import collections, index_spec

T = TypeVar("T")

_PAYLOAD_ONLY = "_none"  # Edge wants at least one vector; events and meta never use it
# memories and meta are read by every open (embedder check, snapshot, recovery); the
# other shards open on first use.
_OPENED_AT_START: tuple[Collection, ...] = ("memories", "meta")
# the layout a new shard is written in, by collection, made on first use (``_today``)
_KEYS: dict[str, Layout] = {}
_LAYOUT_FILE = "memhub_layout.json"
_SHORT = 64  # points an upsert or retrieve may touch to run on the caller's thread
# Qdrant Edge has no background optimizer: without optimize() every memory would stay in
# the appendable segment (float vectors and every index in RAM, rebuilt on each open).
# So every _OPTIMIZE_EVERY memories written the writer asks for it, and close() does too.
# Fewer, larger builds: each one re-reads the payloads of what it merges, and at 2,000 a
# load of a million memories did not finish in 40 minutes (bench/README.md).
_OPTIMIZE_EVERY = 20_000
# Inside bulk() (an import): fewer builds, but still some, so what waits unindexed in the
# appendable segment (float vectors and indexes in RAM) stays bounded however large it is.
_BULK_OPTIMIZE_EVERY = 100_000


def _today(name: Collection) -> Layout:
    """The layout a new shard of ``name`` is written in, and every shard once migrated."""
    layout = _KEYS.get(name)
    if layout is None:
        layout = _KEYS[name] = Layout.of(index_spec(name))
    return layout


def _config(collection: Collection, vector_size: int) -> qe.EdgeConfig:
    if collection == "memories":
        # Int8 copies of the vectors (~4x smaller) do the scoring; the float originals are
        # read only to rescore the best candidates. Both are mmap'd (Cold): pinned int8
        # vectors are copied into RAM point by point on every open, which grew faster
        # than the segment (200k points in one segment: 2.5-4 s against 0.2-0.4 s; a
        # million: 15 s), and the pages a user's reads touch stay in the page cache.
        # No HNSW graph (m=0): every read filters by user, and scoring a user's int8
        # vectors is a plain scan (~2 ms for 20k); building the graph was most of a
        # load's time and grew faster than the store (bench/README.md). A filter that
        # keeps most of a large store scans it all (see bench/README.md for the cost).
        int8 = qe.ScalarQuantizationConfig(
            type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Cold
        )
        return qe.EdgeConfig(
            vectors={
                DENSE: qe.EdgeVectorParams(
                    size=vector_size,
                    distance=qe.Distance.Cosine,
                    memory=qe.Memory.Cold,
                    quantization_config=int8,
                )
            },
            sparse_vectors={BM25: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            hnsw_config=qe.HnswIndexConfig(
                m=0, ef_construct=100, full_scan_threshold=10_000, memory=qe.Memory.Cold
            ),
            # Edge keeps two segments by default, so each index build merged into (and
            # rebuilt) the big one: at 60k written memories one write waited 17 s and the
            # writer held 1.35 GB. With up to eight: 1.5 s and 0.65 GB, queries no slower.
            optimizers=qe.EdgeOptimizersConfig(default_segment_number=8),
        )
    return qe.EdgeConfig(sparse_vectors={_PAYLOAD_ONLY: qe.EdgeSparseVectorParams()})


def _facets_index(layout: Layout) -> qe.PayloadSchemaParams:
    """The index of ``_facets`` in ``layout``'s form of the tokens (``Layout.tokens``)."""
    if layout.tokens in ("uints", "ints"):
        return qe.IntegerIndexParams(lookup=True, range=False, memory=qe.Memory.Cold)
    if layout.tokens == "text":
        return qe.TextIndexParams(
            tokenizer=qe.TokenizerType.Whitespace, lowercase=False, memory=qe.Memory.Cold
        )
    return qe.KeywordIndexParams(memory=qe.Memory.Cold)


def _create_indexes(
    shard: qe.EdgeShard, spec: IndexSpec, existing: set[str], layout: Layout
) -> None:
    """The hot keys and the tenant key each their own index; every other keyword or bool
    key through ``_facets`` (a keyword, integer or text index: ``Layout.tokens``); integer
    and datetime keys their own range index.
    ``existing``: the keys the shard has an index for already.

    The tenant index orders the optimized segment by user (hybrid query at 100k: 1.7 ->
    1.45 ms, bench/README.md). All are on disk (mmap): an in-RAM keyword index is rebuilt
    on every open (0.11 s of a 0.21 s open for the access key at 100k), and the mmap'd
    one answered the recall filter faster (0.8 vs 1.4 ms per hybrid query)."""
    on_disk = qe.KeywordIndexParams(memory=qe.Memory.Cold)
    wanted: dict[str, qe.PayloadSchemaParams] = {key: on_disk for key in spec.hot}
    if spec.tenant:
        wanted[spec.tenant] = qe.KeywordIndexParams(is_tenant=True, memory=qe.Memory.Cold)
    if facets.facet_keys(spec) or layout.marked:
        wanted[facets.FACETS] = _facets_index(layout)
    wanted.update(
        {
            key: qe.IntegerIndexParams(lookup=True, range=True, memory=qe.Memory.Cold)
            for key in spec.integer
        }
    )
    dates = [key for key in spec.datetime if key not in layout.marked]
    wanted.update({key: qe.DatetimeIndexParams(memory=qe.Memory.Cold) for key in dates})
    for key, schema in wanted.items():
        if key not in existing:
            shard.update(qe.UpdateOperation.create_field_index(key, schema))


@dataclass(frozen=True)
class ShardInfo:
    """What one collection's shard holds, as ``EdgeStore.shard_info`` reads it.

    Attributes:
        points: the points stored.
        indexed_vectors: the vectors in a built index (``optimize``); the rest wait in
            the appendable segment, in RAM.
        segments: the shard's segments.
        indexes: each payload key with an index of its own, by its index type
            (``"keyword"``, ``"integer"``, ...).
        opens: how many times this store opened the shard's files: once on first use, and
            again after each index build or compaction, which let go of what it held.
    """

    points: int
    indexed_vectors: int
    segments: int
    indexes: Mapping[str, str]
    opens: int


class EdgeStore:
    """The embedded store: Qdrant Edge shards under ``path`` (default ``./.memhub_data``).

    Example:
        >>> store = EdgeStore("./.memhub_data")
        >>> await store.open(vector_size=384)
    """

    # stores of this process being closed, by folder: a new open of the folder waits for it
    _closing: ClassVar[dict[Path, threading.Event]] = {}

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = DirLock(self.path)
        self._shards: dict[str, qe.EdgeShard] = {}
        self._opens: Counter[str] = Counter()  # shard files opened, by collection
        self._layouts: dict[str, Layout] = {}
        self._vector_size = 0
        self._unoptimized = 0  # memories written since the last optimize()
        self._bulk = 0  # open bulk() blocks: no indexing in passing while > 0
        self._worker = SerialWorker("memhub-edge")
        self._version = 0
        self.opened = 0
        """How many times this process opened the store; between two, another process may
        have written it (``changes``)."""
        self._writes: Counter[str] = Counter()
        self._writes_guard = threading.Lock()  # upsert_now counts on its caller's thread

    async def _run(self, fn: Callable[..., T], *args: object, inline: bool = False) -> T:
        """``fn(*args)`` on the store's worker thread (see the module docstring); ``inline``: a
        short call, run here if the worker is idle (``SerialWorker``)."""
        return await self._worker.run(fn, *args, inline=inline)

    # -- lifecycle ---------------------------------------------------------------

    async def open(self, vector_size: int) -> None:
        await self._run(self._open, vector_size)
        self.opened += 1

    def _open(self, vector_size: int) -> None:
        closing = EdgeStore._closing.get(self.path.resolve())
        if closing is not None:  # this process is still closing the store: let it finish
            closing.wait(timeout=60)
        known = _migrations.edge_version(self.path)
        if known is not None:  # a newer store is refused before anything is written
            _migrations.check_known(known, str(self.path))
        self._lock.acquire()
        try:
            self._vector_size = vector_size
            version = _migrations.edge_version(self.path)
            if version is None:  # a new store: today's layout from the start
                _migrations.record_edge_version(self.path, _migrations.LATEST)
                version = _migrations.LATEST
            _migrations.check_known(version, str(self.path))
            self._version = _migrations.migrate_edge(self, version)
            for name in _OPENED_AT_START:
                self._shard(name)
        except BaseException:
            self._close_shards()
            self._lock.release()
            raise

    def _shard(self, name: Collection) -> qe.EdgeShard:
        """The open shard of ``name``, opened on first use: a process that only recalls
        never pays for the audit log's or an adapter's records' indexes."""
        shard = self._shards.get(name)
        if shard is None:
            if not self._lock.held:
                raise MemHubError("the store is not open")
            shard = self._shards[name] = self._open_shard(name)
            self._opens[name] += 1
        return shard

    async def shard_info(self, collection: Collection) -> ShardInfo:
        """What ``collection``'s shard holds (``ShardInfo``), read on the store's worker, so
        after every write and index build asked for before it; opens the shard if it was
        not."""

        def info() -> ShardInfo:
            found = self._shard(collection).info()
            return ShardInfo(
                points=int(found.points_count),
                indexed_vectors=int(found.indexed_vectors_count),
                segments=int(found.segments_count),
                indexes={
                    key: str(index.data_type).rpartition(".")[2].lower()
                    for key, index in found.payload_schema.items()
                },
                opens=self._opens[collection],
            )

        return await self._run(info)

    def layout(self, name: Collection) -> Layout:
        """The layout ``name``'s shard is written in (``memhub.store.facets``): the one
        recorded beside it; a shard from before layouts were recorded marks every facet
        key when empty. A shard not made yet will be made in today's (``_create``)."""
        layout = self._layouts.get(name)
        if layout is None:
            folder = self.path / name
            if (folder / _LAYOUT_FILE).exists():
                recorded = json.loads((folder / _LAYOUT_FILE).read_text())
                in_doc = recorded.get("in_doc", False)
                tokens = recorded.get("tokens", "text" if recorded.get("text") else "list")
                marked = recorded.get("marked", ())  # recorded since; a shard before has none
                layout = Layout.of(index_spec(name), recorded["present"], in_doc, tokens, marked)
            elif (folder / "edge_config.json").exists():
                layout = Layout.of(index_spec(name), (), in_doc=False, marked=())
            else:
                layout = _today(name)
            self._layouts[name] = layout
        return layout

    def _create(self, name: Collection, folder: Path) -> qe.EdgeShard:
        """A new shard in today's layout, recorded before the shard exists (see ``_layout``)."""
        folder.mkdir(parents=True, exist_ok=True)
        layout = _today(name)
        recorded = {
            "present": sorted(layout.present),
            "in_doc": layout.in_doc,
            "tokens": layout.tokens,
            "marked": sorted(layout.marked),
        }
        part = folder / (_LAYOUT_FILE + ".part")  # whole or absent: _layout may read it now
        part.write_text(json.dumps(recorded))
        part.replace(folder / _LAYOUT_FILE)
        return qe.EdgeShard.create(str(folder), _config(name, self._vector_size))

    def _open_shard(self, name: Collection) -> qe.EdgeShard:
        folder = self.path / name
        self._finish_interrupted_compaction(folder)
        try:
            if (folder / "edge_config.json").exists():
                shard = qe.EdgeShard.load(str(folder))
                if name == "memories":
                    try:
                        self._check_size()
                    except EmbedderMismatchError:
                        shard.close()  # now, not when the traceback is collected
                        raise
            else:
                shard = self._create(name, folder)
        except MemHubError:
            raise
        except Exception as err:  # the binding raises bare Exception
            raise MemHubError(f"cannot open the {name} store at {folder}: {err}") from err
        existing = set(shard.info().payload_schema)
        _create_indexes(shard, index_spec(name), existing, self.layout(name))
        return shard

    # -- the layout version (memhub.store._migrations) ----------------------------

    def layout_version(self) -> int:
        return self._version

    def payload_form(self, collection: Collection) -> Layout:
        """The layout ``collection``'s shard is written in (a ``PayloadForm``)."""
        return self.layout(collection)

    def rewrite_outdated_shards(self) -> None:
        """Rewrite every shard whose layout is not today's, or that has an index of its own
        for a key today's keeps in facets (a shard from before facets), as ``compact`` does
        (migration 1 -> 2). A folder of a collection no installed adapter registers is left
        as it is: it is read in the layout it records."""
        known = set(collections())
        for name in sorted(known):
            if (
                not (self.path / name / "edge_config.json").exists()
                and not (self.path / (name + ".new")).exists()
            ):
                continue
            shard, layout = self._shard(name), self.layout(name)
            own = set(shard.info().payload_schema) & layout.keys
            if layout != _today(name) or own:
                self._rewrite(name)

    def _check_size(self) -> None:
        size = self._stored_size()
        if size and size != self._vector_size:
            raise EmbedderMismatchError(
                f"the store at {self.path} holds {size}-d vectors but "
                f"the embedder makes {self._vector_size}-d vectors; use "
                f"the embedder it was built with or a new storage_dir"
            )

    def _stored_size(self) -> int:
        cfg = json.loads((self.path / "memories" / "edge_config.json").read_text())
        return int(cfg.get("vectors", {}).get(DENSE, {}).get("size", 0))

    @staticmethod
    def _finish_interrupted_compaction(folder: Path) -> None:
        # compact() swaps folders with two renames; a crash between them leaves
        # the complete new copy in ".new" and nothing at the live name.
        new, old = folder.with_name(folder.name + ".new"), folder.with_name(folder.name + ".old")
        if not folder.exists() and new.exists():
            new.rename(folder)
        for leftover in (new, old):
            if leftover.exists():
                shutil.rmtree(leftover)

    def _close_shards(self) -> None:
        for shard in self._shards.values():
            shard.close()
        self._shards.clear()

    async def close(self) -> None:
        await self._run(self._close)
        self._worker.shutdown()

    def _close(self) -> None:
        path = self.path.resolve()
        done = EdgeStore._closing[path] = threading.Event()
        try:
            if self._unoptimized and "memories" in self._shards:
                self._shards["memories"].optimize()
            if self._shards:
                for shard in self._shards.values():
                    shard.flush()
                self._close_shards()
            self._layouts.clear()
            self._lock.release()
        finally:
            del EdgeStore._closing[path]
            done.set()

    # -- writes ------------------------------------------------------------------

    async def upsert(
        self,
        collection: Collection,
        points: Sequence[StoredPoint],
        *,
        only_if: Where | None = None,
        check: Callable[[list[StoredPoint]], None] | None = None,
    ) -> None:
        if points:
            args, short = self._upsert_call(collection, points, only_if, check)
            try:
                await self._run(self._checked_update, *args, inline=short)
            finally:
                self._wrote(collection)
            self._upserted(collection, len(points))

    def upsert_now(
        self,
        collection: Collection,
        points: Sequence[StoredPoint],
        *,
        only_if: Where | None = None,
        check: Callable[[list[StoredPoint]], None] | None = None,
        wait: bool = True,
        counted: Callable[[], None] | None = None,
    ) -> bool:
        """``upsert`` on this thread when the worker is idle and the write is short, else on
        the worker, this thread waiting for it; ``wait=False`` (a caller on an event loop):
        ``False``, nothing written, instead of waiting. ``counted``, after a write that
        succeeded, runs as it is counted in ``changes``, no other write counted in between:
        a cache of the caller's own writes stays exact."""
        if not points:
            return True
        args, short = self._upsert_call(collection, points, only_if, check)
        try:
            done = self._worker.now(self._checked_update, *args, wait=wait, inline=short)
        except BaseException:
            self._wrote(collection)  # counted all the same, but not as the caller's own
            raise
        if done is None:
            return False
        self._wrote(collection, counted)
        self._upserted(collection, len(points))
        return True

    def changes(self, collection: Collection) -> int:
        """A count that grows with every write to ``collection`` through this store (counted
        as the write returns, failed or not) and with every opening of it: while it grows
        only by a caller's own writes, what the caller read and wrote is still what the
        store holds. Only this process writes an open store's folder. Read without the count's
        lock: a ``counted`` callback reads it while that is held."""
        return self._writes[collection] + self.opened

    def _wrote(self, collection: Collection, counted: Callable[[], None] | None = None) -> None:
        with self._writes_guard:
            self._writes[collection] += 1
            if counted is not None:
                counted()

    def _upsert_call(
        self,
        collection: Collection,
        points: Sequence[StoredPoint],
        only_if: Where | None,
        check: Callable[[list[StoredPoint]], None] | None,
    ) -> tuple[tuple[Any, ...], bool]:
        """The arguments of ``_checked_update`` that make this upsert, and whether it is short
        (may run on the caller's thread)."""
        layout = self.layout(collection)
        op = qe.UpdateOperation.upsert_points(
            [to_point(p, layout) for p in points], condition=to_edge_filter(only_if, layout)
        )
        ids = [p.id for p in points] if check is not None else []
        return (collection, ids, check, op), len(points) <= _SHORT

    def _upserted(self, collection: Collection, count: int) -> None:
        if collection == "memories":
            self._unoptimized += count
            every = _BULK_OPTIMIZE_EVERY if self._bulk else _OPTIMIZE_EVERY
            if self._unoptimized >= every:
                self._unoptimized = 0
                # queued behind this write on the worker, not awaited by it
                self._worker.submit(self._optimize)

    async def replace_payload(
        self,
        collection: Collection,
        point_id: str,
        payload: dict[str, Any],
        *,
        only_if: Where | None = None,
    ) -> None:
        layout = self.layout(collection)
        must: list[qe.ConditionType] = [qe.HasIdCondition({point_id})]
        if only_if is not None:
            must.append(edge_filter(only_if, layout))
        op = qe.UpdateOperation.overwrite_payload_by_filter(
            qe.Filter(must=must), facets.stored(payload, layout)
        )
        try:
            await self._run(self._update, collection, op)
        finally:
            self._wrote(collection)

    def _update(self, collection: Collection, op: qe.UpdateOperation) -> None:
        self._shard(collection).update(op)

    def _checked_update(
        self,
        collection: Collection,
        ids: list[str],
        check: Callable[[list[StoredPoint]], None] | None,
        op: qe.UpdateOperation,
    ) -> None:
        """``op``, after ``check`` of the points ``ids`` as stored (one worker call for both:
        a hand-off costs more than a small write)."""
        shard = self._shard(collection)
        if check is not None:
            check([from_record(r, False) for r in shard.retrieve(list(ids), True, False)])
        shard.update(op)

    def _optimize(self) -> None:
        """Index what was written; after a build, open the shard again: the shard keeps what
        the build allocated and mapped (a writer of 100k memories held ~0.9 GB, the same
        store opened afresh 0.25 GB), and only closing it lets that go."""
        shard = self._shards.get("memories")
        if shard is not None and shard.optimize():
            shard.close()
            self._shards["memories"] = qe.EdgeShard.load(str(self.path / "memories"))
            self._opens["memories"] += 1

    async def delete(self, collection: Collection, ids: Sequence[str]) -> None:
        if ids:
            try:
                op = qe.UpdateOperation.delete_points(list(ids))
                await self._run(self._update, collection, op)
            finally:
                self._wrote(collection)

    async def delete_vectors(self, ids: Sequence[str]) -> None:
        if ids:
            op = qe.UpdateOperation.delete_vectors(list(ids), [DENSE, BM25])
            try:
                await self._run(self._update, "memories", op)
            finally:
                self._wrote("memories")

    # -- reads -------------------------------------------------------------------

    async def retrieve(
        self,
        collection: Collection,
        ids: Sequence[str],
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[StoredPoint]:
        if not ids:
            return []

        def retrieve() -> list[StoredPoint]:
            records = self._shard(collection).retrieve(list(ids), with_payload, with_vectors)
            return [from_record(r, with_vectors) for r in records]

        return await self._run(retrieve, inline=len(ids) <= _SHORT)

    async def scroll(
        self,
        collection: Collection,
        where: Where | None = None,
        *,
        limit: int = 100,
        offset: str | None = None,
        order_by: str | None = None,
        descending: bool = False,
        with_vectors: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        scroll = self._scroll_call(
            collection, where, limit, offset, order_by, descending, with_vectors
        )
        return await self._run(scroll)

    def scroll_now(
        self,
        collection: Collection,
        where: Where | None = None,
        *,
        limit: int = 100,
        order_by: str | None = None,
        descending: bool = False,
        wait: bool = True,
    ) -> tuple[list[StoredPoint], str | None] | None:
        """``scroll`` on this thread when the worker is idle, else on the worker, this thread
        waiting for it; ``wait=False`` (a caller on an event loop): ``None`` instead of
        waiting. For a caller on no event loop, as ``upsert_now``."""
        scroll = self._scroll_call(collection, where, limit, None, order_by, descending, False)
        done = self._worker.now(scroll, wait=wait)
        return None if done is None else done[0]

    def _scroll_call(
        self,
        collection: Collection,
        where: Where | None,
        limit: int,
        offset: str | None,
        order_by: str | None,
        descending: bool,
        with_vectors: bool,
    ) -> Callable[[], tuple[list[StoredPoint], str | None]]:
        order = None
        if order_by:
            direction = qe.Direction.Desc if descending else qe.Direction.Asc
            order = qe.OrderBy(order_by, direction=direction)
        request = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=to_edge_filter(where, self.layout(collection)),
            with_payload=True,
            with_vector=with_vectors,
            order_by=order,
        )

        def scroll() -> tuple[list[StoredPoint], str | None]:
            records, next_offset = self._shard(collection).scroll(request)
            nxt = None if next_offset is None or order else point_id(next_offset)
            return [from_record(r, with_vectors) for r in records], nxt

        return scroll

    async def count(self, collection: Collection, where: Where | None = None) -> int:
        request = qe.CountRequest(filter=to_edge_filter(where, self.layout(collection)), exact=True)
        return await self._run(lambda: self._shard(collection).count(request))

    def _query(self, request: qe.QueryRequest) -> list[ScoredPoint]:
        hits = self._shard("memories").query(request)
        return [ScoredPoint(from_record(h, False), float(h.score)) for h in hits]

    async def facet(
        self, collection: Collection, key: str, where: Where | None = None, *, limit: int = 100
    ) -> list[tuple[str | int | bool, int]]:
        """A key with its own index is counted exactly there (``user_id``: ~50 ms at 100k
        points). A key folded into ``_facets`` is counted from the matching points' values
        when the shard stores hashes of them (exact, ~10 us a point: ~1 s at 100k); else
        with every other token of them, so Qdrant's approximate count is asked for (exact:
        ~60 s at 100k, approximate: ~1 s). All run in the worker thread."""
        layout = self.layout(collection)
        if key in layout.packed:
            raise TypeError(f"{key!r} is kept packed on this store: it cannot be counted by value")
        flt = to_edge_filter(where, layout)
        if key in layout.keys and layout.hashed:
            found = list((await self._values(collection, key, flt)).items())
        elif key not in layout.keys:
            request = qe.FacetRequest(key, limit=limit, exact=True, filter=flt)
            hits = (await self._run(lambda: self._shard(collection).facet(request))).hits
            found = [(h.value, int(h.count)) for h in hits]
        else:
            request = qe.FacetRequest(facets.FACETS, limit=1 << 30, exact=False, filter=flt)
            hits = (await self._run(lambda: self._shard(collection).facet(request))).hits
            values = [(facets.value_of(key, str(h.value)), int(h.count)) for h in hits]
            found = [(v, n) for v, n in values if v is not None]
        found.sort(key=lambda f: (-f[1], str(f[0])))
        return found[:limit]

    async def _values(
        self, collection: Collection, key: str, flt: qe.Filter | None
    ) -> Counter[str | int | bool]:
        """Exact counts of ``key``'s values over the points ``flt`` matches, read from their
        payloads a page at a time (~10 us a point): the shard indexes only hashes of them
        (``Layout.hashed``)."""
        counts: Counter[str | int | bool] = Counter()
        selector = qe.PayloadSelector.Include([facets.DOC, key])
        offset = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=4096, filter=flt, with_payload=selector, with_vector=False
            )
            records, offset = await self._run(self._scroll, collection, request)
            for record in records:
                counts.update(facets.values_of(key, facets.restore(record.payload or {})))
            if offset is None:
                return counts

    def _scroll(
        self, collection: Collection, request: qe.ScrollRequest
    ) -> tuple[list[qe.Record], qe.PointId | None]:
        return self._shard(collection).scroll(request)

    async def hybrid_query(
        self,
        dense: list[float],
        sparse: SparseVector,
        where: Where | None,
        *,
        limit: int,
        prefetch_limit: int,
        rrf_k: int,
        weights: tuple[float, float] | None = None,
    ) -> list[ScoredPoint]:
        flt = to_edge_filter(where, self.layout("memories"))
        prefetches = [
            qe.Prefetch(
                limit=prefetch_limit, query=qe.Query.Nearest(list(dense), using=DENSE), filter=flt
            )
        ]
        if sparse.indices:
            bm25 = qe.SparseVector(sparse.indices, sparse.values)
            prefetches.append(
                qe.Prefetch(
                    limit=prefetch_limit, query=qe.Query.Nearest(bm25, using=BM25), filter=flt
                )
            )
        # The filter goes on the prefetches only: fusion ranks their (already filtered)
        # candidates, and a root filter would be merged into every prefetch again,
        # checking each condition twice per candidate (~15% of the query at 100k points).
        request = qe.QueryRequest(
            limit=limit,
            prefetches=prefetches,
            query=fusion(rrf_k, weights, len(prefetches)),
            with_payload=True,
        )
        return await self._run(self._query, request)

    async def dense_query(
        self, dense: list[float], where: Where | None, *, limit: int
    ) -> list[ScoredPoint]:
        return await self._nearest(list(dense), DENSE, where, limit)

    async def sparse_query(
        self, sparse: SparseVector, where: Where | None, *, limit: int
    ) -> list[ScoredPoint]:
        if not sparse.indices:
            return []
        return await self._nearest(
            qe.SparseVector(sparse.indices, sparse.values), BM25, where, limit
        )

    async def _nearest(
        self, vector: list[float] | qe.SparseVector, using: str, where: Where | None, limit: int
    ) -> list[ScoredPoint]:
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(vector, using=using),
            filter=to_edge_filter(where, self.layout("memories")),
            with_payload=True,
        )
        return await self._run(self._query, request)

    # -- maintenance -------------------------------------------------------------

    async def optimize(self) -> None:
        """Build the vector and payload indexes for what was written since the last run."""
        self._unoptimized = 0
        await self._run(self._shard, "memories")  # opened if it was not
        await self._run(self._optimize)

    @contextlib.asynccontextmanager
    async def bulk(self) -> AsyncIterator[None]:
        """Write with fewer index builds in passing (one every 100k memories) and build
        what is left once when the block ends: an import's writes are not interrupted by
        builds every 20k, and what waits unindexed in RAM stays bounded (bench/README.md).
        """
        self._bulk += 1
        try:
            yield
        finally:
            self._bulk -= 1
            if not self._bulk and self._unoptimized:
                await self.optimize()

    async def prefetch(self, collection: Collection, *, vectors: bool = False) -> None:
        """Read the files a scroll of ``collection`` reads (``memhub.store._readahead``), on
        the worker: no build or compaction replaces them meanwhile. ~0.25 s for a 100k store,
        which spared its first export ~2.5 s of page faults (bench/README.md)."""
        await self._run(self._prefetch, collection, vectors)

    def _prefetch(self, collection: Collection, vectors: bool) -> None:
        if not (self.path / collection / "edge_config.json").exists():
            return  # never written: nothing to read, and no shard to make for it
        self._shard(collection)  # opening a shard drops its pages from the cache: first
        _readahead.read_ahead(
            _readahead.scrolled_files(self.path / collection, vectors), _readahead.budget()
        )

    async def compact(self, progress: Callable[[int], None] | None = None) -> None:
        for name in collections():
            await self._run(self._rewrite, name, progress)

    def _rewrite(self, name: Collection, progress: Callable[[int], None] | None = None) -> None:
        """Copy the live points into a fresh shard and swap it in: overwritten
        payload pages and WAL entries of the old shard are deleted with it."""
        folder = self.path / name
        new, old = folder.with_name(name + ".new"), folder.with_name(name + ".old")
        shard = self._shard(name)
        shard.flush()
        fresh = self._create(name, new)
        _create_indexes(fresh, index_spec(name), set(), _today(name))
        self._prefetch(name, vectors=True)
        offset = None
        while True:
            records, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=512, with_payload=True, with_vector=True)
            )
            if records:
                points = [to_point(from_record(r, True), _today(name)) for r in records]
                fresh.update(qe.UpdateOperation.upsert_points(points))
                if progress:
                    progress(len(points))
            if offset is None:
                break
        fresh.optimize()
        fresh.flush()
        fresh.close()
        shard.close()
        folder.rename(old)
        new.rename(folder)
        shutil.rmtree(old)
        self._shards[name] = qe.EdgeShard.load(str(folder))
        self._opens[name] += 1
        self._layouts[name] = _today(name)
