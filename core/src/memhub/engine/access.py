"""The access key: one indexed keyword that says who may see a memory, in what state.

A recall filter names the tenant, user, app, status, exposure, layer and the
checkout binding (workspace, repository, branch) of the memories it wants. Said
as nine payload conditions, Qdrant checks every one for each candidate point
(a hybrid query at 100k memories: 2.8-4.3 ms with the nine, 1.5 ms with this one
condition; bench/README.md). So every memory also stores
``ak``, a few short hashes of those fields, and a read asks for one ``MatchAny``
over the combinations it accepts: one condition, checked with one lookup.

Each memory stores its own app or any app, times its exact checkout binding or any
binding. A read whose binding has a wildcard (``ANY``) for only some of the three
keys uses the any-binding key plus explicit conditions. A memory bound to no
checkout (most of them) stores no any-binding key: its exact key says as much,
and a read over any binding asks for the unbound key as well. So it stores two
keys, not four: each key is a value the store converts and indexes on every
write (an import's writes, bench/README.md). A memory written with four keys
before is found the same way.

``ak`` is derived from the payload alone and recomputed on every write
(``Engine.insert``/``update``), so it can never disagree with the fields.

An operation on one memory by its id (get, update, delete, history, correct, govern)
does not query: it reads the point and asks :func:`owned` whether the caller's scope
may touch it: tenant, user and app as a read has them, and any checkout.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from itertools import product
from typing import Final

from memhub.engine.payload import Memory, as_stored
from memhub.scope import ANY, Scope

ACCESS_KEY: Final = "ak"
VERSION = "1"  # part of every hash: a change of layout must bump it (and backfill)
BINDING_KEYS = ("workspace", "repository", "branch")
_ANY = "\x00*"  # cannot collide with a real value: payload strings never hold NUL


@functools.lru_cache(maxsize=4096)  # a few per user and state: an import repeats them
def _key(
    tenant: str, user: str, app: str, status: str, exposure: str, layer: str, binding: str
) -> str:
    raw = "\x1f".join((VERSION, tenant, user, app, status, exposure, layer, binding))
    return hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()


def _binding(values: Sequence[str]) -> str:
    return "\x1e".join(values)


_UNBOUND = _binding(("",) * len(BINDING_KEYS))


def access_keys(payload: Memory) -> list[str]:
    """The keys stored on a memory (see the module docstring)."""
    base = (payload.get("tenant", ""), payload.get("user_id") or "")
    state = (payload.get("status", ""), payload.get("exposure", ""), payload.get("layer", ""))
    stored = as_stored(payload)
    exact = _binding([stored.get(k) or "" for k in BINDING_KEYS])
    bindings = (exact,) if exact == _UNBOUND else (exact, _ANY)
    return [
        _key(*base, app, *state, binding)
        for app in (payload.get("app_id") or "", _ANY)
        for binding in bindings
    ]


def read_keys(
    tenant: str,
    user: str | None,
    apps: Iterable[str] | None,
    statuses: Iterable[str],
    layers: Iterable[str],
    bindings: Iterable[Sequence[str]] | None,
) -> list[str]:
    """The keys a read accepts.

    Args:
        apps: the app ids it may see; ``None`` for any app.
        bindings: the exact (workspace, repository, branch) triples it may see, with
            ``""`` for "not bound"; ``None`` for any binding.
    """
    app_parts = list(apps) if apps is not None else [_ANY]
    # any binding: the bound memories' any-binding key, and the unbound ones' own key
    binding_parts = [_binding(b) for b in bindings] if bindings is not None else [_ANY, _UNBOUND]
    return [
        _key(tenant, user or "", app, status, "visible", layer, binding)
        for app, status, layer, binding in product(app_parts, statuses, layers, binding_parts)
    ]


def owned(payload: Memory, scope: Scope) -> bool:
    """Whether a by-id operation called with ``scope`` may touch this memory.

    Tenant and user are walls; the checkout is not. A scope narrows what a read
    *recalls* by default, but an id names one memory: ``memhub history ID`` run from
    the home directory, or an SDK client in another checkout, reaches a memory written
    in a repository. So the call needs the same tenant; the user it names (a call
    naming none is the tenant's own, over every user); and the app it names (``"*"``
    widens; an app is a product of its own, as in every read). ``workspace``,
    ``repository`` and ``branch`` are not compared, and agent and session are
    provenance. A tombstone keeps only its id and times, so only a call naming no user
    reaches it. A memory that fails this is answered exactly like a missing id, so a
    caller cannot tell "not yours" from "does not exist".
    """
    if payload.get("tenant") != scope.tenant:
        return False
    if payload.get("exposure") == "tombstoned":
        # only the id and times remain (no user or app to compare): the tenant's own
        # calls, naming no user, reach it; a call on a user's behalf does not
        return scope.user_id is None
    if scope.user_id is not None and payload.get("user_id") != scope.user_id:
        return False
    return scope.app_id in (None, ANY) or payload.get("app_id") == scope.app_id
