"""``forget_user``: erase everything memhub holds about one end user (the right to erasure).

Every memory of the user in the tenant (any layer, status and exposure) goes down
govern's tombstone path (``hmg.hide``): content and vectors dropped, only the id and
times kept (not even the user's id: asked as that user, the memory is not found),
one audit event with the reason ``forget_user``. The audit log never
holds memory content, but it does hold the reasons callers gave to ``correct`` and
``govern``, which may quote it: those of the user's memories are erased too.
LangGraph store items tagged with the user are deleted, as that store's own delete
does. The user's pending digest scopes are dropped, so no digest runs for them.

Reads skip tombstones, so the text is gone from every door at once; ``purge``
rewrites the store so it is gone from the files on disk as well.
"""

from __future__ import annotations

import uuid

from memhub.engine.core import Engine
from memhub.engine.digest import drop_pending
from memhub.engine.hmg import hide
from memhub.engine.payload import ITEM_LAYERS, Memory, as_memory
from memhub.ids import to_point_id
from memhub.models import ForgetResult
from memhub.scope import check_id
from memhub.store.base import Match, StoredPoint, Where, every, pages

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


async def forget_user(
    engine: Engine, tenant: str, user_id: str, *, app_id: str | None = None
) -> ForgetResult:
    user_id = check_id(user_id, "user_id")
    if app_id is not None:
        app_id = check_id(app_id, "app_id")
    async with engine.write_lock:
        # many updates: a marker first, so the next open finishes what a crash or a
        # conflict left undone (resume_forget); running it again is safe by design
        marker = str(uuid.uuid4())
        fields = {"kind": "pending_forget", "tenant": tenant, "user_id": user_id, "app_id": app_id}
        await engine.store.upsert("meta", [StoredPoint(marker, fields)])
        erased = await _forget(engine, tenant, user_id, app_id)
        await engine.store.delete("meta", [marker])
    return ForgetResult(user_id=user_id, tombstoned=erased)


async def _forget(engine: Engine, tenant: str, user_id: str, app_id: str | None) -> int:
    erased = 0
    # the next page's first point is untouched by this one, so its offset holds
    async for page in pages(
        engine.store, "memories", user_records(tenant, user_id, app_id), size=PAGE
    ):
        erased += await _erase(engine, [as_memory(p.payload) for p in page])
    dropped = await drop_pending(engine, tenant, user_id, app_id)
    if erased or dropped:
        await engine.bump()
    return erased


async def resume_forget(engine: Engine) -> None:
    """Finish ``forget_user`` calls a crash or a conflict interrupted (run on open)."""
    for marker in await every(engine.store, "meta", Where(must=(Match("kind", "pending_forget"),))):
        m = marker.payload
        await _forget(engine, m["tenant"], m["user_id"], m.get("app_id"))
        await engine.store.delete("meta", [marker.id])


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
