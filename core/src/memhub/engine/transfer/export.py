"""Export: every version of every memory of a tenant, with its audit events, as JSON Lines
(``memhub.engine.transfer.jsonl``); ``memhub.engine.transfer.transfer`` imports them back.

An export is a scroll of the whole store, a page of ``PAGE`` memories at a time, each page
with the audit steps of its memories. Where its time goes, and what each choice here
bought, is measured in bench/README.md ("Export and import").
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from memhub.engine import audit
from memhub.engine.core import Engine
from memhub.engine.payload import ITEM_LAYERS
from memhub.engine.records import now
from memhub.engine.transfer import jsonl
from memhub.models import ExportResult
from memhub.progress import Progress
from memhub.store.base import Match, MatchAny, Where, pages

PAGE = 4096  # a scroll page: fewer round trips to the store's thread

_pausing = threading.Lock()
_paused = 0  # transfers running with the collector paused (``collector_paused``)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a transfer runs. A page of an export and a
    batch of an import hold thousands of fresh dicts until they are written: young
    collections move them on, and every few pages the survivors set off a full collection
    over the whole process (~20% of an export's CPU at 100k memories, bench/README.md).
    They die by reference counting, so the pause keeps only the few cycles made meanwhile,
    which the first collection after it frees. A collector the caller disabled stays so."""
    global _paused
    with _pausing:
        pause = _paused > 0 or gc.isenabled()  # joins a running pause, never the caller's
        if pause:
            _paused += 1
            gc.disable()
    try:
        yield
    finally:
        if pause:
            with _pausing:
                _paused -= 1
                if not _paused:
                    gc.enable()


def exported(tenant: str, user_id: str | None = None, app_id: str | None = None) -> Where:
    """The memories an export takes: every status and exposure, no adapters' store items, no
    half-written replace (``pending``). A tombstone keeps no user or app, so a filtered export
    leaves tombstones out."""
    must = [Match("tenant", tenant)]
    must += [Match("user_id", user_id)] if user_id else []
    must += [Match("app_id", app_id)] if app_id else []
    return Where(
        must=tuple(must), must_not=(MatchAny("layer", ITEM_LAYERS), Match("status", "pending"))
    )


async def export(
    engine: Engine,
    write: Callable[[str], Any],
    tenant: str,
    *,
    user_id: str | None = None,
    app_id: str | None = None,
    include_vectors: bool = False,
    progress: Progress | None = None,
) -> ExportResult:
    """Write the header line, then one line per memory of ``tenant`` (see
    ``memhub.engine.transfer.jsonl``).
    """
    with collector_paused():
        return await _export(engine, write, tenant, user_id, app_id, include_vectors, progress)


async def _export(
    engine: Engine,
    write: Callable[[str], Any],
    tenant: str,
    user_id: str | None,
    app_id: str | None,
    include_vectors: bool,
    progress: Progress | None,
) -> ExportResult:
    progress = progress or Progress()
    where = exported(tenant, user_id, app_id)
    filters = {k: v for k, v in (("user_id", user_id), ("app_id", app_id)) if v}
    write(
        jsonl.dumps(
            jsonl.header(
                engine.embedder.name,
                engine.embedder.dim,
                vectors=include_vectors,
                filters=filters,
                at=now(),
            )
        )
        + "\n"
    )
    progress.start("export", await engine.store.count("memories", where))
    if user_id is None:
        # Most of the store follows: read it ahead rather than page by page (an embedded
        # store's first export in a process waited ~3 s of 8 on the disk at 100k memories,
        # bench/README.md). A user's memories are a small part of it, kept together.
        await engine.store.prefetch("memories", vectors=include_vectors)
        await engine.store.prefetch("events")
    count = events = 0
    # The scroll names the tenant (and user, app) only and what it leaves out is dropped
    # here: checked in the store for every point, the two rare exclusions were ~40% of
    # the scroll's CPU (100k memories).
    async for found in pages(
        engine.store, "memories", Where(must=where.must), size=PAGE, with_vectors=include_vectors
    ):
        page = [p for p in found if _taken(p.payload)]
        if not page:
            continue
        by_atom = await _events_of(engine, [p.payload["id"] for p in page])
        lines = []
        for point in page:
            steps = by_atom.get(point.payload["id"], [])
            events += len(steps)
            lines.append(
                jsonl.dumps(jsonl.memory_line(point.payload, steps, point.dense, point.sparse))
            )
        write("\n".join(lines) + "\n")
        count += len(page)
        progress.advance(len(page))
    return ExportResult(exported=count, events=events, vectors=include_vectors)


def _taken(payload: dict[str, Any]) -> bool:
    """Whether ``exported`` takes a point its ``must`` matched (the ``must_not`` part)."""
    return payload.get("layer") not in ITEM_LAYERS and payload.get("status") != "pending"


async def _events_of(engine: Engine, atom_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    asked = set(atom_ids)
    found: dict[str, list[dict[str, Any]]] = {}
    async for page in pages(
        engine.store, "events", Where(must=(MatchAny("atom_id", tuple(atom_ids)),)), size=PAGE
    ):
        for step in audit.steps(page, asked):
            found.setdefault(step["atom_id"], []).append(step)
    for steps in found.values():
        if len(steps) > 1:  # most memories have one step (a sort of one still keys it)
            steps.sort(key=lambda e: (e.get("at", ""), e["id"]))
    return found
