"""An import in two processes: a worker prepares the next batch while this one writes.

Within one process an import of 100k memories with vectors spent ~80-90 µs of its ~340 µs
of CPU a memory in Python (parsing, checks, redaction, payload copies, the access keys),
and the rest in the Qdrant Edge binding, whose conversion, write and index build hold the
GIL: a thread cannot overlap them (bench/README.md). So a long import sends its lines, a
batch at a time, to a worker process (``memhub._cpu_worker``'s protocol, started the
same way as ``memhub.cpu``'s) that returns each batch checked, redacted and ready to
write (:class:`Prepared`), and the importing process is left with the lookups by id, the
binding's work and what only the store can decide (re-embedding, the audit bundles).

What the worker returns is only ever written by this process, after the same lookups by id
as a one-process import: a worker that dies leaves the store as an interrupted import does
(every batch written whole or not at all) and the import raises :class:`WorkerLost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memhub import cpu
from memhub.engine.conversation import CONTEXT
from memhub.engine.core import with_access
from memhub.engine.payload import as_memory, as_stored
from memhub.engine.transfer import _import_ids, jsonl
from memhub.errors import InvalidInputError, MemHubError
from memhub.store.base import PayloadForm


class WorkerLost(MemHubError):
    """The import's worker process ended during the import (killed, out of memory)."""

    code = "worker_lost"


@dataclass
class Ready:
    """A memory to write as it is: its vectors are the file's (or it has none, governed)."""

    pid: str
    payload: dict[str, Any]
    """The stored record, in the importing tenant, with its access keys; laid out as
    ``facets.stored`` lays it out when :func:`prepare` was given a layout."""
    events: list[dict[str, Any]]
    row: int
    """Its dense vector's row in :attr:`Prepared.dense` (-1: none)."""
    sparse: tuple[list[int], list[float]] | None


@dataclass
class Prepared:
    """One batch of lines as the worker returns it."""

    errors: list[str] = field(default_factory=list)
    """A message (naming its line) per line that is not a memory record."""
    ready: list[Ready] = field(default_factory=list)
    rest: list[jsonl.Record] = field(default_factory=list)
    """Records this process must embed or index (another embedder, a redacted text, a
    raw turn whose context changed, vectors without BM25), as a one-process import does."""
    dense: bytes = b""
    """The dense vectors of ``ready``, float32 rows one after the other: a list of 384
    Python floats pickles ~8x larger and slower."""
    dim: int = 0
    repeated: int = 0
    """Lines naming a memory an earlier line of the batch named (skipped, as the store would)."""
    known: int = 0
    """Lines naming a memory the tenant had when the batch was sent (skipped)."""
    refs: set[str] = field(default_factory=set)
    """The point ids the batch's records refer to (``_import_ids.references``), for the
    importing process to place in the tenant."""

    def vector(self, ready: Ready) -> Sequence[float] | None:
        if ready.row < 0:
            return None
        size = self.dim * 4
        return jsonl.float32s(self.dense[ready.row * size : (ready.row + 1) * size])


def imported(payload: dict[str, Any], tenant: str) -> dict[str, Any]:
    """A memory line's payload as the importing store keeps it: in ``tenant``, with its
    access keys (both processes of an import make it so)."""
    return as_stored(with_access(as_memory({**payload, "tenant": tenant})))


def prepare(
    lines: list[tuple[int, str]],
    dim: int | None,
    reuse: bool,
    tenant: str,
    layout: PayloadForm | None,
    present: set[str],
) -> Prepared:
    """Parse and check ``lines`` (in the worker process; pure), and redact those whose point
    id is not in ``present`` (the tenant has those); ``layout``: the importing store's
    form of ``memories`` payloads (``MemoryStore.payload_form``), to lay them out in here."""
    out = Prepared()
    records: list[jsonl.Record] = []
    seen: set[str] = set()
    for number, text in lines:
        try:
            record = jsonl.parse_unredacted(text, number, dim)
        except InvalidInputError as err:
            out.errors.append(str(err))
            continue
        if record.pid in present:
            out.known += 1
        elif record.pid in seen:
            out.repeated += 1
        else:
            seen.add(record.pid)
            records.append(record)
            out.refs |= _import_ids.referenced(record.payload, record.events)
    jsonl.redact_records(records)
    redacted = {r.payload["id"] for r in records if r.changed}
    rows: list[np.ndarray] = []
    for r in records:
        vectors_fit = reuse and r.dense is not None and r.sparse is not None and not r.changed
        if r.text is not None and not (vectors_fit and r.payload.get(CONTEXT) not in redacted):
            out.rest.append(r)
            continue
        payload = imported(r.payload, tenant)
        if layout is not None:
            payload = layout.lay_out(payload)
        sparse = (r.sparse.indices, r.sparse.values) if r.sparse is not None else None
        row = -1
        if r.text is not None and r.dense is not None:
            row = len(rows)
            rows.append(np.asarray(r.dense, dtype="<f4"))
        out.ready.append(Ready(r.pid, payload, r.events, row, sparse))
    if rows:
        out.dense, out.dim = np.stack(rows).tobytes(), len(rows[0])
    return out


class Pipe:
    """The worker process of one import; :meth:`submit` queues a batch, in order."""

    def __init__(self) -> None:
        self._worker = cpu.Worker()
        # one thread: batches reach the worker, and come back, in the order submitted
        self._sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memhub-import")
        self._pending: list[asyncio.Future[Prepared]] = []

    def submit(
        self,
        lines: list[tuple[int, str]],
        dim: int | None,
        reuse: bool,
        tenant: str,
        layout: PayloadForm | None,
        present: set[str],
    ) -> asyncio.Future[Prepared]:
        call = functools.partial(prepare, lines, dim, reuse, tenant, layout, present)
        job = asyncio.get_running_loop().run_in_executor(self._sender, self._call, call)
        self._pending.append(job)
        return job

    async def result(self, job: asyncio.Future[Prepared]) -> Prepared:
        try:
            return await job
        finally:
            self._pending.remove(job)

    def _call(self, call: functools.partial[Prepared]) -> Prepared:
        try:
            result: Prepared = self._worker.call(call)
        except cpu.Lost as err:
            code = self._worker.process.poll()
            raise WorkerLost(
                f"the import's worker process ended (exit code {code}); every batch before "
                "it is in the store and none is half-written: run the import again to resume"
            ) from err
        return result

    def close(self) -> None:
        """End the worker (at once: an import that stops early leaves its batches unread)."""
        for job in self._pending:
            job.cancel()
        self._worker.kill()
        self._sender.shutdown(wait=True, cancel_futures=True)  # its read ends: the worker is gone
        self._worker.close()


@contextlib.asynccontextmanager
async def pipe() -> AsyncIterator[Pipe]:
    """A :class:`Pipe` whose worker ends with the block, however it ends."""
    p = Pipe()
    try:
        yield p
    finally:
        p.close()
