"""Pure builders of the filters every read uses (no I/O)."""

from __future__ import annotations

from collections.abc import Iterable

from memhub.scope import ANY, Scope
from memhub.store.base import IsEmpty, Match, MatchAny, Where

# A memory bound to a checkout is seen only there; one bound to none is seen everywhere.
_NESTED_KEYS = ("workspace", "repository", "branch")
# Narrowing keys: a read that names one sees only that one; a read that doesn't sees all.
_OPTIONAL_KEYS = ("agent_id", "session_id")


def scope_filter(scope: Scope, *, app_ids: Iterable[str] | None = None) -> Where:
    must: list = [Match("tenant", scope.tenant)]
    must.append(Match("user_id", scope.user_id) if scope.user_id else IsEmpty("user_id"))
    apps = tuple(app_ids) if app_ids else ((scope.app_id,) if scope.app_id else ())
    if apps and ANY not in apps:
        must.append(MatchAny("app_id", apps) if len(apps) > 1 else Match("app_id", apps[0]))
    for key in _OPTIONAL_KEYS:
        value = getattr(scope, key)
        if value and value != ANY:
            must.append(Match(key, value))
    for key in _NESTED_KEYS:
        value = getattr(scope, key)
        if value == ANY:
            continue
        if value is None:
            must.append(IsEmpty(key))
        else:
            must.append(Where(should=(Match(key, value), IsEmpty(key))))
    return Where(must=tuple(must))


def current(where: Where, layers: Iterable[str]) -> Where:
    """Active, visible memories of the given layers inside ``where``."""
    layers = tuple(layers)
    layer = MatchAny("layer", layers) if len(layers) > 1 else Match("layer", layers[0])
    return where.and_(Match("status", "active"), Match("exposure", "visible"), layer)
