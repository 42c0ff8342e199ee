"""Reads for looking at a whole tenant's memory (the inspector): pages, facets, activity.

The SDK's reads serve an agent: one user, current and visible memories, ranked.
Someone auditing the memory needs every record of the tenant, whatever its status
or exposure, filtered by any scope key and paged newest first. Pages are keyset
ones (``created_at`` of the last row, through the datetime index), so page 2,000 of
100k memories costs what page 1 does: a page with a filter took 1-5 ms there
(bench/inspector_bench.py). Governed records come back as ``to_atom`` shows them:
the placeholder, never their text.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from memhub.engine import audit
from memhub.engine.core import Engine
from memhub.engine.payload import ITEM_LAYERS, as_memory
from memhub.engine.records import GOVERNED, to_atom
from memhub.errors import InvalidInputError
from memhub.models import Atom
from memhub.scope import SCOPE_KEYS
from memhub.store.base import DateRange, Match, MatchAny, Where

# the scope keys but the tenant (a page is always of one), and the lifecycle fields
FILTER_KEYS = (*(k for k in SCOPE_KEYS if k != "tenant"), "layer", "status", "exposure")
MAX_PAGE = 200
ACTIVITY_EVENTS = 5_000  # the newest audit steps an activity chart reads


class Page(BaseModel):
    """One page of memories, newest first."""

    atoms: list[Atom]
    next_cursor: str | None = Field(None, description="pass as ``cursor`` for the next page")


def tenant_filter(tenant: str, filters: dict[str, str] | None = None) -> Where:
    """The tenant's memories (no adapters' store items, no half-written versions) matching
    ``filters``.

    ``filters`` maps keys of ``FILTER_KEYS`` to one value each; empty values are ignored.
    """
    must: list[Any] = [Match("tenant", tenant)]
    for key, value in (filters or {}).items():
        if key not in FILTER_KEYS:
            raise InvalidInputError(
                f"cannot filter on {key!r}; use one of {', '.join(FILTER_KEYS)}"
            )
        if value:
            must.append(Match(key, value))
    return Where(
        must=tuple(must), must_not=(MatchAny("layer", ITEM_LAYERS), Match("status", "pending"))
    )


def _encode(at: str, seen: list[str]) -> str:
    return base64.urlsafe_b64encode(json.dumps([at, seen]).encode()).decode().rstrip("=")


def _decode(cursor: str) -> tuple[str, list[str]]:
    try:
        at, seen = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        datetime.fromisoformat(at)
        if not isinstance(seen, list) or not all(isinstance(i, str) for i in seen):
            raise ValueError
    except (ValueError, TypeError) as err:
        raise InvalidInputError("the page cursor is not one this server gave out") from err
    return at, seen


async def page(
    engine: Engine,
    tenant: str,
    filters: dict[str, str] | None = None,
    *,
    limit: int = 50,
    cursor: str | None = None,
) -> Page:
    """A page of the tenant's memories matching ``filters``, newest first.

    The cursor holds the ``created_at`` of the last row and the ids shown with that
    same time, so rows written in the same millisecond are neither lost nor repeated.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidInputError(f"limit must be 1..{MAX_PAGE}")
    where = tenant_filter(tenant, filters)
    at: str | None = None
    seen: list[str] = []
    if cursor:
        at, seen = _decode(cursor)
        where = where.and_(DateRange("created_at", lte=at))
    points, _ = await engine.store.scroll(
        "memories", where, limit=limit + len(seen) + 1, order_by="created_at", descending=True
    )
    skip = set(seen)
    rows = [m for m in (as_memory(p.payload) for p in points) if m.get("id") not in skip]
    more, rows = len(rows) > limit, rows[:limit]
    next_cursor = None
    if more and rows:
        last = rows[-1]["created_at"]
        tied = [r["id"] for r in rows if r["created_at"] == last]
        carried = seen if at == last else []
        next_cursor = _encode(last, carried + tied)
    return Page(atoms=[to_atom(p) for p in rows], next_cursor=next_cursor)


async def atom(engine: Engine, tenant: str, atom_id: str) -> Atom:
    """One memory of the tenant, whatever its user, status or exposure (``NotFoundError``
    for an id of another tenant, as for a missing one)."""
    return to_atom(await engine.get(atom_id, tenant))


async def facet(
    engine: Engine, tenant: str, key: str, filters: dict[str, str] | None = None, *, limit: int = 20
) -> list[tuple[str, int]]:
    """The most common values of ``key`` (a ``FILTER_KEYS`` key) in the tenant, with counts
    (approximate on large stores for some keys: see ``MemoryStore.facet``; ``counts_by``
    counts exactly)."""
    if key not in FILTER_KEYS:
        raise InvalidInputError(f"cannot count by {key!r}; use one of {', '.join(FILTER_KEYS)}")
    found = await engine.store.facet("memories", key, tenant_filter(tenant, filters), limit=limit)
    return [(str(value), count) for value, count in found]


async def count(engine: Engine, tenant: str, filters: dict[str, str] | None = None) -> int:
    """How many memories of the tenant match ``filters`` (exact)."""
    return await engine.store.count("memories", tenant_filter(tenant, filters))


async def counts_by(
    engine: Engine, tenant: str, key: str, value: str, field: str, values: tuple[str, ...]
) -> dict[str, int]:
    """How many of the memories with ``key == value`` have each of ``values`` in ``field``."""
    base = tenant_filter(tenant, {key: value})
    return {v: await engine.store.count("memories", base.and_(Match(field, v))) for v in values}


async def sources(engine: Engine, tenant: str, atom_id: str) -> list[Atom]:
    """The raw turns (L0) a memory was extracted from, oldest first; governed ones as
    placeholders.
    """
    payload = await engine.get(atom_id, tenant)
    if payload.get("exposure") in GOVERNED:
        return []
    cited = [
        p for p in await engine.get_many(payload.get("evidence") or []) if p.get("tenant") == tenant
    ]
    return [to_atom(p) for p in sorted(cited, key=lambda p: p["created_at"])]


async def activity(
    engine: Engine, tenant: str, *, days: int = 14, until: datetime | None = None
) -> dict[str, dict[str, int]]:
    """Per day (``YYYY-MM-DD``, the last ``days`` days, oldest first): how many records each
    write decision or correction created or changed, from the audit log.

    The write judge's ``add``/``override``/``supplement``/``need_context`` are there, as are
    ``memorize``, ``replace``, ``update``, ``delete``, ``negate``, ``seal``, ...; decisions
    that store nothing (``NOOP``, ``INVALID``, ``RAW_ONLY``) leave no audit step.
    """
    end = (until or datetime.now(UTC)).astimezone(UTC)
    first = (end - timedelta(days=days - 1)).date()
    since = (
        datetime(first.year, first.month, first.day, tzinfo=UTC).isoformat().replace("+00:00", "Z")
    )
    where = Where(must=(Match("tenant", tenant), DateRange("at", gte=since)))
    events, _ = await engine.store.scroll(
        "events", where, limit=ACTIVITY_EVENTS, order_by="at", descending=True
    )
    per_day: dict[str, Counter[str]] = {
        (first + timedelta(days=i)).isoformat(): Counter() for i in range(days)
    }
    # a bundle (memhub.engine.audit) may hold older steps too: the day check drops them
    for e in audit.steps(events):
        day = str(e.get("at", ""))[:10]
        # a replace logs the old and the new version: count the change once
        if day in per_day and not (e.get("to") == "superseded" and e.get("related")):
            per_day[day][str(e.get("action"))] += 1
    return {day: dict(c) for day, c in per_day.items()}
