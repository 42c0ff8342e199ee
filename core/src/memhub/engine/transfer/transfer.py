"""Import: the lines of an export (``export``, ``jsonl`` beside this module) or of a
converted foreign store, with their audit events.

Import is idempotent by id: a memory whose id the importing tenant has is skipped, so a
second run adds nothing and an interrupted run resumes where it stopped. Ids are looked up
in the importing tenant only (``memhub.engine.transfer._import_ids``): an id another
tenant holds is neither skipped nor reported, the memory takes a fresh id there, and so do
the references to it. A batch writes its audit events before its memories, in bundles
(``memhub.engine.audit``) whose ids follow from their events' (so writing them again
changes nothing, and a reader drops an event seen twice), which makes a memory's presence
the mark that it was imported completely. Each batch goes under the write lock by itself:
a running hub keeps serving between batches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from memhub.engine import audit, conversation
from memhub.engine.conversation import CONTEXT
from memhub.engine.core import Engine
from memhub.engine.payload import Memory, as_memory
from memhub.engine.transfer import _import_ids, _import_pipe, jsonl
from memhub.engine.transfer.export import collector_paused, export, exported
from memhub.errors import InvalidInputError
from memhub.models import ImportResult
from memhub.progress import Progress
from memhub.store.base import PayloadForm, SparseVector, StoredPoint

BATCH = 2048  # memories per write: one lookup, one upsert each for them and their events
PIPED = 4 * BATCH
"""Lines from which an import prepares its batches in a worker process
(``memhub.engine.transfer._import_pipe``): starting one costs about a second of CPU."""
EMBED_BATCH = 64
MAX_ERRORS = 100

__all__ = ["export", "exported", "import_lines", "validate"]


def validate(lines: Iterable[tuple[int, str]]) -> None:
    """Check every line (for ``strict``): the first bad one raises, before anything is written."""
    dim = None
    for number, text in lines:
        if not text.strip():
            continue
        header = jsonl.read_header(text) if number == 1 else None
        if header is not None:
            dim = header.get("embedder", {}).get("dim")
            continue
        jsonl.parse_unredacted(text, number, dim)


@dataclass
class _Run:
    engine: Engine
    tenant: str
    progress: Progress
    reuse: bool = False
    dim: int | None = None
    result: ImportResult = field(default_factory=lambda: ImportResult(imported=0, skipped=0))
    later: list[str] = field(default_factory=list)
    """Raw turns imported before their context turn: indexed again once all is in."""
    written: set[str] = field(default_factory=set)
    """The point ids the last batch wrote (for ``_read_piped``)."""


async def import_lines(
    engine: Engine,
    lines: Iterable[tuple[int, str]],
    tenant: str,
    *,
    total: int | None = None,
    progress: Progress | None = None,
) -> ImportResult:
    """Import ``(line number, text)`` pairs of an export (or of a converted foreign store).

    Memories take the importing ``tenant``. A line that is not a memory record is
    reported (``ImportResult.errors``) and skipped as a whole; the others are applied.
    Vectors are reused when the header names this store's embedder, else made here.
    """
    run = _Run(engine, tenant, progress or Progress())
    run.progress.start("import", total)
    with collector_paused():
        async with engine.store.bulk():
            if total is not None and total >= PIPED:
                await _read_piped(run, lines)
            else:
                await _read(run, lines)
        if run.later:
            turns = [m for m in await engine.get_many(run.later) if m.get("tenant") == tenant]
            async with engine.write_lock:
                await conversation.reindex(engine, turns)
    if run.result.imported:
        async with engine.write_lock:
            await engine.bump()
    return run.result


async def _read(run: _Run, lines: Iterable[tuple[int, str]]) -> None:
    for chunk in _chunks(run, lines):
        await _apply_here(run, chunk)


async def _apply_here(run: _Run, chunk: list[tuple[int, str]]) -> None:
    """Parse and write a batch of lines in this process."""
    batch: list[jsonl.Record] = []
    for number, text in chunk:
        try:
            batch.append(jsonl.parse_unredacted(text, number, run.dim))
        except InvalidInputError as err:
            _invalid(run, str(err))
            run.progress.advance(1)
    if batch:
        await _apply(run, batch)


async def _read_piped(run: _Run, lines: Iterable[tuple[int, str]]) -> None:
    """``_read``, with each batch prepared in a worker process while the one before is
    written here (``memhub.engine.transfer._import_pipe``). The first batch is written here while
    the worker starts (about a second: it imports memhub).

    A batch's ids are read from the start of its lines (``jsonl.peek_id``) and looked up
    before it is sent, so that the worker neither redacts nor lays out what the tenant has
    (an import run again, or resumed); it still parses every line, so a bad one is reported
    as in one process. The batch written meanwhile was not in the store at that lookup:
    what it wrote (``_Run.written``) is left out again when the batch comes back.
    """
    # an embedded store lays its payloads out: done in the worker too (~12 us a memory)
    layout = run.engine.store.payload_form("memories")
    async with _import_pipe.pipe() as pipe:
        chunks = _chunks(run, lines)
        first = next(chunks, None)
        queued: list[tuple[asyncio.Future[_import_pipe.Prepared], _Sent]] = []
        for chunk in chunks:
            checked = {pid for _, text in chunk if (pid := jsonl.peek_id(text))}
            placement = await _import_ids.place(run.engine, run.tenant, checked)
            job = pipe.submit(chunk, run.dim, run.reuse, run.tenant, layout, placement.held)
            queued.append((job, _Sent(chunk, checked, placement)))
            if first is not None:
                await _apply_here(run, first)
                first = None
            elif len(queued) > 1:  # the worker has the next batch: write this one meanwhile
                job, sent = queued.pop(0)
                await _apply_prepared(run, await pipe.result(job), layout, sent)
        if first is not None:
            await _apply_here(run, first)
        for job, sent in queued:
            await _apply_prepared(run, await pipe.result(job), layout, sent)


@dataclass
class _Sent:
    """A batch sent to the worker: its lines, the ids peeked from them and where they go."""

    chunk: list[tuple[int, str]]
    checked: set[str]
    placement: _import_ids.Placement


def _chunks(run: _Run, lines: Iterable[tuple[int, str]]) -> Iterator[list[tuple[int, str]]]:
    """The memory lines in batches (the header read, blank lines counted as done)."""
    chunk: list[tuple[int, str]] = []
    for number, text in lines:
        if not text.strip() or (number == 1 and _header(run, text)):
            run.progress.advance(1)
            continue
        chunk.append((number, text))
        if len(chunk) >= BATCH:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _header(run: _Run, text: str) -> bool:
    header = jsonl.read_header(text)
    if header is None:
        return False
    made_with = header.get("embedder") or {}
    run.dim = made_with.get("dim")
    mine = {"name": run.engine.embedder.name, "dim": run.engine.embedder.dim}
    run.reuse = made_with == mine
    if header.get("vectors") and not run.reuse:
        note = (
            f"the export was made with the embedder {made_with.get('name')!r} "
            f"({made_with.get('dim')}-d); "
            f"this store uses {mine['name']!r} ({mine['dim']}-d): re-embedding every memory"
        )
        run.result.notes.append(note)
        run.progress.note(note)
    return True


def _invalid(run: _Run, message: str) -> None:
    run.result.invalid += 1
    if len(run.result.errors) < MAX_ERRORS:
        run.result.errors.append(message)


async def _apply(run: _Run, batch: list[jsonl.Record]) -> None:
    pids = {r.pid for r in batch}.union(
        *(_import_ids.referenced(r.payload, r.events) for r in batch)
    )
    placement = await _import_ids.place(run.engine, run.tenant, pids)
    moved = placement.moved()
    seen: set[str] = set()
    new = []
    for record in batch:
        pid = placement.at[record.pid]
        if pid in placement.held or pid in seen:
            run.result.skipped += 1
            continue
        seen.add(pid)
        if moved:
            _import_ids.relocate(record.payload, record.events, placement.at, run.tenant)
            record.pid = pid
        new.append(record)
    jsonl.redact_records(new)  # what is skipped is never redacted: it is not stored
    await _embed(run, new)
    await _write(run, [_point(run, r) for r in new], [e for r in new for e in r.events])
    run.written = seen
    run.progress.advance(len(batch))


async def _apply_prepared(
    run: _Run, batch: _import_pipe.Prepared, layout: PayloadForm | None, sent: _Sent
) -> None:
    """``_apply`` for a batch the worker parsed, checked, redacted and (``layout``) laid out;
    the ids in ``sent.checked`` were placed before it was sent (``_read_piped``).

    A batch with an id that another tenant holds, itself or as a reference, is written
    again from its lines in this process, which gives it and its references their ids
    in this tenant: a worker's record is laid out already, and that happens only when
    files cross tenants.
    """
    found = batch.ready + batch.rest
    unchecked = {r.pid for r in found if r.pid not in sent.checked}
    placement = await _import_ids.place(
        run.engine, run.tenant, unchecked | (batch.refs - sent.placement.at.keys())
    )
    if sent.placement.moved() or placement.moved():
        await _apply_here(run, sent.chunk)
        return
    for message in batch.errors:
        _invalid(run, message)
    present = run.written | (placement.held & unchecked)
    ready = [r for r in batch.ready if r.pid not in present]
    rest = [r for r in batch.rest if r.pid not in present]
    run.result.skipped += batch.known + batch.repeated + len(found) - len(ready) - len(rest)
    if rest:  # the batch's memories are the context of its raw turns, whichever way they came
        others = [layout.read_back(r.payload) if layout is not None else r.payload for r in ready]
        await _embed(run, rest, others)
    points = [
        StoredPoint(
            r.pid,
            layout.as_laid(r.payload) if layout is not None else r.payload,
            batch.vector(r),
            SparseVector(*r.sparse) if r.sparse is not None else None,
        )
        for r in ready
    ]
    points += [_point(run, r) for r in rest]
    await _write(
        run, points, [e for r in ready for e in r.events] + [e for r in rest for e in r.events]
    )
    run.written = {p.id for p in points}
    run.progress.advance(len(sent.chunk))


def _point(run: _Run, r: jsonl.Record) -> StoredPoint:
    return StoredPoint(
        r.pid, _import_pipe.imported(r.payload, run.tenant), jsonl.as_floats(r.dense), r.sparse
    )


async def _write(run: _Run, points: list[StoredPoint], steps: list[dict[str, Any]]) -> None:
    """Write new memories with their audit steps."""
    engine = run.engine
    # The audit log is append-only: an event whose id the store holds (a resumed import, or
    # a file naming another memory's event) is not written again, nor is a bundle already
    # there. The others go in bundles (memhub.engine.audit): a point per event was most of
    # what an import's events cost.
    events = audit.bundles(await _unlogged(engine, steps, run.tenant), run.tenant)
    bundled = await _logged(engine, [e.id for e in events], run.tenant)
    events = [e for e in events if e.id not in bundled]
    async with engine.write_lock:
        await engine.store.upsert("events", events)  # first: see the module docstring
        await engine.store.upsert("memories", points)
    run.result.imported += len(points)


async def _unlogged(
    engine: Engine, steps: list[dict[str, Any]], tenant: str
) -> list[dict[str, Any]]:
    logged = await _logged(engine, [str(e["id"]) for e in steps], tenant)
    return [e for e in steps if e["id"] not in logged] if logged else steps


async def _logged(engine: Engine, ids: list[str], tenant: str) -> set[str]:
    """Which of the event points ``ids`` the tenant has (another tenant's are not looked
    at: a file naming them must not keep this tenant's steps out)."""
    there = [p.id for p in await engine.store.retrieve("events", ids, with_payload=False)]
    if not there:
        return set()
    found = await engine.store.retrieve("events", there)
    return {p.id for p in found if p.payload.get("tenant") == tenant}


async def _embed(
    run: _Run, records: list[jsonl.Record], others: Sequence[dict[str, Any]] = ()
) -> None:
    """Vectors for the records that carry none this store can use, in batches; ``others``:
    the batch's other memories (payloads), which raw turns may have as context."""
    engine = run.engine
    redacted = {r.payload["id"] for r in records if r.changed}
    todo = [
        r
        for r in records
        if r.text is not None
        and (r.dense is None or not run.reuse or r.changed or r.payload.get(CONTEXT) in redacted)
    ]
    # a raw turn is indexed with the turn before it (memhub.engine.conversation)
    turns = [r for r in todo if r.payload.get(CONTEXT)]
    todo = [r for r in todo if not r.payload.get(CONTEXT)]
    if turns:  # the batch's memories, as the context of its turns
        batch = {r.payload["id"]: as_memory({**r.payload, "tenant": run.tenant}) for r in records}
        batch.update((p["id"], as_memory(p)) for p in others)
        await _embed_turns(run, turns, batch)
    for start in range(0, len(todo), EMBED_BATCH):
        chunk = todo[start : start + EMBED_BATCH]
        texts = [r.text for r in chunk if r.text is not None]  # all of them: see todo
        vectors = await engine.embedder.embed_passages(texts)
        for record, text, vector in zip(chunk, texts, vectors, strict=True):
            record.dense = vector
            record.sparse = engine.bm25.document(text)
        run.result.embedded += len(chunk)
    for (
        record
    ) in records:  # BM25 is the same everywhere: a carried one is kept unless the text changed
        if record.text is not None and record.sparse is None:
            record.sparse = engine.bm25.document(record.text)


async def _embed_turns(run: _Run, records: list[jsonl.Record], batch: dict[str, Memory]) -> None:
    """Raw turns with their context, as the write made them; a turn whose context turn is
    not in the store yet (later in the file) is indexed again at the end (``_Run.later``)."""
    for start in range(0, len(records), EMBED_BATCH):
        chunk = records[start : start + EMBED_BATCH]
        payloads = [as_memory({**r.payload, "tenant": run.tenant}) for r in chunk]
        known = {**await conversation.context_of(run.engine, payloads), **batch}
        texts, vectors = await conversation.index(run.engine, payloads, known)
        for record, text, vector in zip(chunk, texts, vectors, strict=True):
            record.dense, record.sparse = vector, run.engine.bm25.document(text)
            if record.payload[CONTEXT] not in known:
                run.later.append(record.payload["id"])
        run.result.embedded += len(chunk)
