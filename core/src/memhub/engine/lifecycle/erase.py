"""``forget_user``: erase everything memhub holds about one end user (the right to erasure).

Every memory of the user in the tenant (any layer, status and exposure) goes down
govern's tombstone path (``hmg.hide``): content and vectors dropped, only the id and
times kept (not even the user's id: asked as that user, the memory is not found),
one audit event with the reason ``forget_user``. The audit log never
holds memory content, but it does hold the reasons callers gave to ``correct`` and
``govern``, which may quote it: those of the user's memories are erased too.
LangGraph store items tagged with the user are deleted, as that store's own delete
does. The user's pending digest scopes are dropped, so no digest runs for them.

The user's LangGraph threads are deleted whole, as ``delete_thread`` does: every
checkpoint, channel value and pending write of each thread held in the checkpoint
collections. Those hold the conversation and whatever a node put in the state (the
memory block ``memory_search_node`` recalled), and a thread is the user's when any
of its checkpoints names the user (``memhub.records``: the checkpointer records the
run's ``user_id`` and ``app_id`` on each checkpoint). A thread of several users goes
with any of them: erasure errs on the side of the user who asked.

Reads skip tombstones, so the text is gone from every door at once; ``purge``
rewrites the store so it is gone from the files on disk as well.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from memhub.engine.core import RESUME_STEPS, Engine
from memhub.engine.hmg import hide
from memhub.engine.lifecycle.digest import drop_pending
from memhub.engine.payload import ITEM_LAYERS, Memory, as_memory
from memhub.ids import to_point_id
from memhub.models import ForgetResult
from memhub.scope import check_id
from memhub.store.base import Collection, Match, MemoryStore, StoredPoint, Where, every, pages
from memhub.store.schema import in_tenant

REASON = "forget_user"
ERASED_REASON = "[reason erased: forget_user]"
PAGE = 256
THREAD_COLLECTIONS: tuple[Collection, ...] = ("checkpoint_writes", "checkpoints")
# Told of each write here to a collection of records, as (store, collection): the record
# API (``memhub.records``) subscribes, to count them with its own (``Records.writes``).
record_writes: list[Callable[[MemoryStore, Collection], None]] = []


def user_records(tenant: str, user_id: str, app_id: str | None = None) -> Where:
    """Every record of ``user_id`` in ``tenant`` (of ``app_id`` when given).

    A tombstone keeps no ``user_id``, so it never matches again: that makes a second
    ``forget_user`` a no-op.
    """
    must = [Match("tenant", tenant), Match("user_id", user_id)]
    if app_id is not None:
        must.append(Match("app_id", app_id))
    return Where(must=tuple(must))


def user_checkpoints(tenant: str, user_id: str, app_id: str | None = None) -> Where:
    """The checkpoints that tie a thread to ``user_id`` in ``tenant`` (of ``app_id`` when
    given)."""
    return user_records(tenant, user_id, app_id).and_(Match("kind", "checkpoint"))


async def forget_user(
    engine: Engine, tenant: str, user_id: str, *, app_id: str | None = None
) -> ForgetResult:
    user_id = check_id(user_id, "user_id")
    if app_id is not None:
        app_id = check_id(app_id, "app_id")
    async with engine.write_lock:
        # many updates: a marker first, so the next open finishes what a crash or a
        # conflict left undone (resume_forget); running it again is safe by design
        fields = {"kind": "pending_forget", "tenant": tenant, "user_id": user_id, "app_id": app_id}
        marker = StoredPoint(str(uuid.uuid4()), fields)
        await engine.store.upsert("meta", [marker])
        erased, threads = await _forget(engine, marker)
        await engine.store.delete("meta", [marker.id])
    return ForgetResult(user_id=user_id, tombstoned=erased, threads=threads)


async def _forget(engine: Engine, marker: StoredPoint) -> tuple[int, int]:
    m = marker.payload
    tenant, user_id, app_id = m["tenant"], m["user_id"], m.get("app_id")
    threads = await _forget_threads(engine, marker)
    erased = 0
    # the next page's first point is untouched by this one, so its offset holds
    async for page in pages(
        engine.store, "memories", user_records(tenant, user_id, app_id), size=PAGE
    ):
        erased += await _erase(engine, [as_memory(p.payload) for p in page])
    dropped = await drop_pending(engine, tenant, user_id, app_id)
    if erased or dropped or threads:
        await engine.bump()
    return erased, threads


async def _forget_threads(engine: Engine, marker: StoredPoint) -> int:
    """Delete the threads of the marker's user, a page of them at a time; how many.

    Each page's threads are named on the marker before any of them is deleted: their
    checkpoints are what tie them to the user, so a thread cut short would be found no
    more, and the marker is how ``resume_forget`` finishes it. A page is deleted whole
    before the next is looked for, so the marker names one page at most.
    """
    m = marker.payload
    tenant, ties = m["tenant"], user_checkpoints(m["tenant"], m["user_id"], m.get("app_id"))
    threads: list[str] = list(m.get("threads") or [])  # the page a cut-short forget left
    deleted = 0
    while True:
        for thread_id in threads:
            await _delete_thread(engine.store, tenant, thread_id)
        deleted += len(threads)
        found, _ = await engine.store.scroll("checkpoints", ties, limit=PAGE)
        if not found:
            return deleted
        threads = sorted({str(p.payload["thread_id"]) for p in found})
        await engine.store.upsert("meta", [StoredPoint(marker.id, {**m, "threads": threads})])


async def _delete_thread(store: MemoryStore, tenant: str, thread_id: str) -> None:
    """Every record of one thread of ``tenant``: pending writes, checkpoints, channel values."""
    where = in_tenant(tenant).and_(Match("thread_id", thread_id))
    for collection in THREAD_COLLECTIONS:
        try:
            while page := (await store.scroll(collection, where, limit=PAGE))[0]:
                await store.delete(collection, [p.id for p in page])
        finally:
            # a checkpointer keeps a thread's latest checkpoint while only it writes
            for told in record_writes:
                told(store, collection)


async def resume_forget(engine: Engine) -> None:
    """Finish ``forget_user`` calls a crash or a conflict interrupted (run on open)."""
    for marker in await every(engine.store, "meta", Where(must=(Match("kind", "pending_forget"),))):
        await _forget(engine, marker)
        await engine.store.delete("meta", [marker.id])


RESUME_STEPS.append(resume_forget)  # after hmg's: erase imports hmg


async def _erase(engine: Engine, payloads: list[Memory]) -> int:
    items = [p for p in payloads if p.get("layer") in ITEM_LAYERS]
    memories = [p for p in payloads if p.get("layer") not in ITEM_LAYERS]
    if memories:
        await engine.erase_reasons([m["id"] for m in memories], ERASED_REASON)
    for memory in memories:
        await hide(engine, memory, "tombstoned", REASON, "tombstone", followers=False)
    if items:
        await engine.store.delete("memories", [to_point_id(p["id"]) for p in items])
    return len(memories) + sum(1 for p in items if p["layer"] == "item")
