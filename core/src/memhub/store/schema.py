"""Collection names and payload indexes, shared by every backend, and the record
collections adapters register beside them.

The core's collections are ``memories``, ``events`` and ``meta``. A framework adapter that
keeps records of its own in the store declares each of its collections once, at import
(``register_collection``), with its indexes and, when its records can belong to an end
user, how ``forget_user`` finds them (``ErasedBy``). An installed adapter also names the
module that registers them under the entry-point group ``memhub.records``, so a process
that never imported the adapter (a memhub server, a script calling ``forget_user``) still
knows them: ``registered()`` imports those modules the first time it is asked.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from importlib.metadata import entry_points

from memhub.errors import InvalidInputError
from memhub.scope import SCOPE_KEYS
from memhub.store.base import Collection, IndexSpec, IsEmpty, Match, Where

COLLECTIONS: tuple[Collection, ...] = ("memories", "events", "meta")
"""The core's collections; ``collections()`` adds the registered ones."""

ENTRY_POINTS = "memhub.records"
"""The entry-point group of the modules that register an adapter's record collections."""

LEGACY_TENANT = "local"
"""The tenant of records written before records carried one."""


@dataclass(frozen=True)
class ErasedBy:
    """How ``forget_user`` finds the records of one end user in a registered collection.

    The records of the collection that name the user (``user_id``, and ``app_id`` when one
    is asked for) and match every ``(key, value)`` of ``marks`` tie their value of ``unit``
    to the user; every record of the tenant holding one of those values, in each of
    ``reaches`` (the collection itself last), is deleted. For an agent framework's saved
    conversations the unit is a conversation: a saved state naming the user ties its
    conversation's id, and every record of that conversation goes.
    """

    unit: str
    marks: tuple[tuple[str, str], ...] = ()
    reaches: tuple[Collection, ...] = ()


@dataclass(frozen=True)
class RecordCollection:
    """One collection of an adapter's own records: payload only, reached through
    ``client.records`` and kept inside the client's tenant (``in_tenant``)."""

    name: Collection
    indexes: IndexSpec
    erase: ErasedBy | None = None


_REGISTERED: dict[str, RecordCollection] = {}
_LOADED = False
_LOAD_GUARD = threading.RLock()


def register_collection(
    name: Collection, indexes: IndexSpec, *, erase: ErasedBy | None = None
) -> RecordCollection:
    """Declare a collection of an adapter's records (see the module docstring). Registering
    the same declaration again is a no-op; another one under a name in use is refused."""
    record = RecordCollection(name, indexes, erase)
    if name in COLLECTIONS or not name.replace("_", "").isalnum() or not name.islower():
        raise InvalidInputError(
            f"a record collection is named in lower-case letters, digits and _, and not "
            f"after one of the core's ({', '.join(COLLECTIONS)}): {name!r}"
        )
    if "tenant" not in indexes.hot + indexes.keyword:
        raise InvalidInputError(f"record collection {name!r} must index 'tenant' (in_tenant)")
    with _LOAD_GUARD:
        known = _REGISTERED.get(name)
        if known is not None and known != record:
            raise InvalidInputError(f"record collection {name!r} is registered already")
        _REGISTERED[name] = record
    return record


def registered() -> dict[str, RecordCollection]:
    """The registered record collections by name, the installed adapters' included."""
    global _LOADED
    if not _LOADED:
        with _LOAD_GUARD:
            if not _LOADED:
                _LOADED = True
                for point in entry_points(group=ENTRY_POINTS):
                    importlib.import_module(point.value)
    return dict(_REGISTERED)


def collections() -> tuple[Collection, ...]:
    """The core's collections and the registered ones."""
    return COLLECTIONS + tuple(registered())


def index_spec(name: Collection) -> IndexSpec:
    """The payload indexes of ``name``, a core or a registered collection."""
    spec = INDEXES.get(name)
    if spec is not None:
        return spec
    record = _REGISTERED.get(name) or registered().get(name)
    if record is None:
        raise InvalidInputError(
            f"no collection {name!r}: the core's are {', '.join(COLLECTIONS)}, and no "
            "installed adapter registers one so named"
        )
    return record.indexes


def in_tenant(tenant: str) -> Where:
    """The records of ``tenant`` in a registered collection: those tagged with it, and for
    the default tenant those written before records carried one."""
    if tenant == LEGACY_TENANT:
        return Where(should=(Match("tenant", tenant), IsEmpty("tenant")))
    return Where(must=(Match("tenant", tenant),))


# Every key a read path filters on has an index: Qdrant filters without one
# fall back to a full payload scan (but "rev" of "memories": see there).
INDEXES: dict[Collection, IndexSpec] = {
    "memories": IndexSpec(
        keyword=(
            "ak",  # the access key every read filters on (memhub.engine.access)
            "layer",
            "status",
            "exposure",
            "epistemic",
            *SCOPE_KEYS,  # tenant, user_id, ... (memhub.scope)
            "content_hash",
            "chain_root",
            "boundary_scope",
            # an adapter's items (client.records.insert): layer "item" / "item_text"
            "ns_prefixes",
            "item",
        ),
        # no index on ``rev``: a conditional write, its only filter, names its point by id
        # too; each index is a pass over every payload when a segment is built (~6 us a
        # memory, bench/README.md)
        # valid time: an ``as_of`` read filters on both (memhub.engine.filters.valid_at)
        datetime=("created_at", "expires_at", "valid_from", "valid_to"),
        # only items with a TTL have one: an index of it was a pass over every
        # payload per segment build (~7 us a memory); the TTL sweep finds them by the mark
        marked=("expires_at",),
        hot=("ak",),
        tenant="user_id",
        optional=(
            "agent_id",
            "workspace",
            "repository",
            "branch",
            "boundary_scope",
            "ns_prefixes",
            "item",
        ),
        # no read filters on these (a filter on one is refused by EdgeStore)
        packed=(
            "content",
            "polarity",
            "source",
            "updated_at",
            "version",
            "occurred_at",
            "role",
            "speaker",
            "procedure",
            "replace_step",
            "related",
            "lessons",
            "superseded_by",
            "proactive",
            "valid_precision",
            "kept_from",
        ),
    ),
    "events": IndexSpec(
        keyword=("atom_id", "kind", "tenant"),
        datetime=("at",),
        # ``bundle``: the steps of a bundle (memhub.engine.audit), one JSON string on Edge
        packed=("action", "from", "to", "reason", "by", "related", "bundle"),
    ),
    "meta": IndexSpec(),
}
