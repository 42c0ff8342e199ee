"""Pure builders of the filters every read uses (no I/O)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from itertools import product

from memhub.engine.access import ACCESS_KEY, BINDING_KEYS, read_keys
from memhub.engine.dates import Span
from memhub.engine.valid_time import iso, parse_instant
from memhub.errors import InvalidInputError
from memhub.scope import ANY, Scope
from memhub.store.base import Condition, DateRange, IsEmpty, Match, MatchAny, Where

# Narrowing keys: a read that names one sees only that one; a read that doesn't sees all.
_OPTIONAL_KEYS = ("agent_id", "session_id")


def _apps(scope: Scope, app_ids: Iterable[str] | None) -> tuple[str, ...] | None:
    """The app ids a read may see, ``None`` for all."""
    apps = tuple(app_ids) if app_ids else ((scope.app_id,) if scope.app_id else ())
    return None if not apps or ANY in apps else apps


def _binding(key: str, value: str | None) -> Match | IsEmpty | Where:
    # A memory bound to a checkout is seen only there; one bound to none is seen everywhere.
    return IsEmpty(key) if value is None else Where(should=(Match(key, value), IsEmpty(key)))


def _narrowing(scope: Scope) -> list[Match]:
    return [Match(k, v) for k in _OPTIONAL_KEYS if (v := getattr(scope, k)) and v != ANY]


def visible(
    scope: Scope,
    layers: Iterable[str],
    *,
    app_ids: Iterable[str] | None = None,
    statuses: Iterable[str] = ("active",),
) -> Where:
    """Visible memories of ``scope`` with one of ``layers`` and ``statuses``.

    Said with the access key (``memhub.engine.access``): one condition instead of one
    per scope key (tenant, user, app, checkout binding) plus status, exposure and layer.
    ``tests/core/test_access_key.py`` holds that explicit form and checks both agree.
    """
    values = [getattr(scope, k) for k in BINDING_KEYS]
    exact = ANY not in values
    bindings = list(product(*([""] if v is None else [v, ""] for v in values))) if exact else None
    keys = read_keys(
        scope.tenant, scope.user_id, _apps(scope, app_ids), tuple(statuses), tuple(layers), bindings
    )
    must: list[Condition] = [MatchAny(ACCESS_KEY, tuple(keys)), *_narrowing(scope)]
    if not exact:
        must += [_binding(k, v) for k, v in zip(BINDING_KEYS, values, strict=True) if v != ANY]
    return Where(must=tuple(must))


def reconciling(scope: Scope, layers: Iterable[str]) -> Where:
    """What a write is compared with: the user's current memories, whatever the session.

    ``session_id`` is provenance, not a wall: a user's memory is one memory across
    sessions, so dedupe, the judge and procedure supersede look at every session of
    the user (within the tenant, the app and the checkout binding). ``agent_id`` is a
    wall: an agent's memories of the user (written with ``agent_id``) are its own and
    are reconciled only with that agent's memories, and the shared memory (written
    without ``agent_id``) only with the shared memory. So one agent's correction never
    retires what another agent, or the user's shared memory, holds.
    """
    shared = replace(scope, session_id=None, agent_id=None)
    agent = scope.agent_id if scope.agent_id != ANY else None
    own = Match("agent_id", agent) if agent else IsEmpty("agent_id")
    return visible(shared, layers).and_(own)


AS_OF_STATUSES = ("active", "superseded", "negated")
"""What an ``as_of`` read may find: a version current then may have been replaced or negated
since. A deleted (archived) memory is not read at any date: deleting says it should not be
shown, not that it stopped being true; governed ones are never visible."""


def valid_at(at: str) -> tuple[Where, Where]:
    """The conditions of an ``as_of`` read on valid time (``memhub.engine.valid_time``): begun
    by ``at`` and not ended before it. ``records.held_at`` decides the boundary instant and
    the memories stored before valid time (no ``valid_from``), whose times the store cannot
    compare. A nested condition on their ``created_at`` measured the same (store query at
    100k memories 1.50x a plain one either way, bench/time_bench.py): the simpler one stays."""
    begun = Where(should=(DateRange("valid_from", lte=at), IsEmpty("valid_from")))
    return begun, Where(should=(IsEmpty("valid_to"), DateRange("valid_to", gte=at)))


def as_of_filter(
    as_of: str | None,
) -> tuple[datetime | None, tuple[str, ...], tuple[Where, ...]]:
    """An ``as_of`` read's instant, the statuses it reads and its conditions on valid time.

    Without ``as_of``: now, current memories only, no condition (the plain read, unchanged).
    With it: the versions whose valid time covers that instant, whatever they became since
    (a value superseded later is current as of an earlier date; one said after it is not
    there). The store narrows by ``filters.valid_at``; ``records.held_at`` decides the rest.
    History is the copy read: no second one is kept.

    Raises:
        InvalidInputError: ``as_of`` is not an ISO 8601 date or date-time.
    """
    if as_of is None:
        return None, ("active",), ()
    try:
        at = parse_instant(as_of)
    except ValueError as err:
        raise InvalidInputError(str(err)) from None
    return at, AS_OF_STATUSES, valid_at(iso(at))


def held_in(span: Span) -> Where:
    """Memories whose valid time met the days of ``span`` and has ended since."""
    return Where(
        must=(
            DateRange("valid_from", lte=f"{span.last.isoformat()}T23:59:59.999Z"),
            DateRange("valid_to", gte=f"{span.first.isoformat()}T00:00:00Z"),
        )
    )
