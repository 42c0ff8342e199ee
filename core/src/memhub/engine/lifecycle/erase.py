"""``forget_user``: erase everything memhub holds about one end user (the right to erasure).

Every memory of the user in the tenant (any layer, status and exposure) goes down
govern's tombstone path (``hmg.hide``): content and vectors dropped, only the id and
times kept (not even the user's id: asked as that user, the memory is not found),
one audit event with the reason ``forget_user``. The audit log never
holds memory content, but it does hold the reasons callers gave to ``correct`` and
``govern``, which may quote it: those of the user's memories are erased too.
An adapter's item records tagged with the user are deleted. The user's pending digest
scopes are dropped, so no digest runs for them.

The record collections adapters registered are walked too (``memhub.store.schema``):
in each one that says how (``ErasedBy``), the records naming the user tie units to
the user (say, a conversation an adapter keeps), and every record of each such unit is
deleted, in every collection the unit reaches. A unit of several users goes with any
of them: erasure errs on the side of the user who asked.

Reads skip tombstones, so the text is gone from every door at once; ``purge``
rewrites the store so it is gone from the files on disk as well.
"""

from __future__ import annotations

import uuid

from memhub.engine.core import RESUME_STEPS, Engine
from memhub.engine.hmg import hide
from memhub.engine.lifecycle.digest import drop_pending
from memhub.engine.payload import ITEM_LAYERS, Memory, as_memory
from memhub.ids import to_point_id
from memhub.models import ForgetResult
from memhub.scope import check_id
from memhub.store.base import Match, MemoryStore, StoredPoint, Where, every, pages
from memhub.store.schema import RecordCollection, in_tenant, registered

REASON = "forget_user"
ERASED_REASON = "[reason erased: forget_user]"
PAGE = 256


def user_records(tenant: str, user_id: str, app_id: str | None = None) -> Where:
    """Every record of ``user_id`` in ``tenant`` (of ``app_id`` when given).

    A tombstone keeps no ``user_id``, so it never matches again: that makes a second
    ``forget_user`` a no-op.
    """
    must = [Match("tenant", tenant), Match("user_id", user_id)]
    if app_id is not None:
        must.append(Match("app_id", app_id))
    return Where(must=tuple(must))


def user_ties(record: RecordCollection, tenant: str, user_id: str, app_id: str | None) -> Where:
    """The records of ``record``'s collection that tie a unit to ``user_id`` in ``tenant``
    (of ``app_id`` when given)."""
    assert record.erase is not None
    marks = tuple(Match(key, value) for key, value in record.erase.marks)
    return user_records(tenant, user_id, app_id).and_(*marks)


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
        erased, units = await _forget(engine, marker)
        await engine.store.delete("meta", [marker.id])
    return ForgetResult(user_id=user_id, tombstoned=erased, threads=units)


async def _forget(engine: Engine, marker: StoredPoint) -> tuple[int, int]:
    m = marker.payload
    tenant, user_id, app_id = m["tenant"], m["user_id"], m.get("app_id")
    units = 0
    for record in registered().values():
        if record.erase is not None:
            units += await _forget_units(engine, marker, record)
    erased = 0
    # the next page's first point is untouched by this one, so its offset holds
    async for page in pages(
        engine.store, "memories", user_records(tenant, user_id, app_id), size=PAGE
    ):
        erased += await _erase(engine, [as_memory(p.payload) for p in page])
    dropped = await drop_pending(engine, tenant, user_id, app_id)
    if erased or dropped or units:
        await engine.bump()
    return erased, units


async def _forget_units(engine: Engine, marker: StoredPoint, record: RecordCollection) -> int:
    """Delete the units of the marker's user that ``record`` ties to them, a page of them at
    a time; how many.

    Each page's units are named on the marker (under ``units``, by collection) before any
    of them is deleted: the records tying them are what tie them to the user, so a unit cut
    short would be found no more, and the marker is how ``resume_forget`` finishes it. A
    page is deleted whole before the next is looked for, so the marker names one page at
    most per collection.
    """
    assert record.erase is not None
    m = marker.payload
    tenant, key = m["tenant"], record.erase.unit
    ties = user_ties(record, tenant, m["user_id"], m.get("app_id"))
    named: dict[str, list[str]] = dict(m.get("units") or {})
    units = list(named.get(record.name) or [])  # the page a cut-short forget left
    deleted = 0
    while True:
        for unit in units:
            await _delete_unit(engine.store, record, tenant, unit)
        deleted += len(units)
        found, _ = await engine.store.scroll(record.name, ties, limit=PAGE)
        if not found:
            return deleted
        units = sorted({str(p.payload[key]) for p in found if p.payload.get(key) is not None})
        if not units:  # tying records without a unit: nothing else belongs to them
            await engine.store.delete(record.name, [p.id for p in found])
            continue
        named[record.name] = units
        m = {**m, "units": named}
        await engine.store.upsert("meta", [StoredPoint(marker.id, m)])


async def _delete_unit(
    store: MemoryStore, record: RecordCollection, tenant: str, unit: str
) -> None:
    """Every record of one unit of ``tenant`` in the collections it reaches, the tying
    collection last."""
    assert record.erase is not None
    where = in_tenant(tenant).and_(Match(record.erase.unit, unit))
    reached = [c for c in record.erase.reaches if c != record.name] + [record.name]
    for collection in reached:
        while page := (await store.scroll(collection, where, limit=PAGE))[0]:
            await store.delete(collection, [p.id for p in page])


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
