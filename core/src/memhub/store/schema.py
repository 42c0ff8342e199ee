"""Collection names and payload indexes, shared by every backend."""

from __future__ import annotations

from memhub.scope import SCOPE_KEYS
from memhub.store.base import Collection, IndexSpec, IsEmpty, Match, Where

COLLECTIONS: tuple[Collection, ...] = (
    "memories",
    "events",
    "meta",
    "checkpoints",
    "checkpoint_writes",
)

# Records (checkpoints) written before they carried a tenant belong to this one.
LEGACY_TENANT = "local"


def in_tenant(tenant: str) -> Where:
    """The checkpoint records of ``tenant``: those tagged with it, and for the default tenant
    those written before records carried one."""
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
            # LangGraph store items (memhub-langgraph): layer "item" / "item_text".
            "ns_prefixes",
            "item",
        ),
        # no index on ``rev``: a conditional write, its only filter, names its point by id
        # too; each index is a pass over every payload when a segment is built (~6 us a
        # memory, bench/README.md)
        # valid time: an ``as_of`` read filters on both (memhub.engine.filters.valid_at)
        datetime=("created_at", "expires_at", "valid_from", "valid_to"),
        # only LangGraph items with a TTL have one: an index of it was a pass over every
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
    # LangGraph checkpointer (memhub-langgraph); payload only.
    # "tenant" is hot (its own index, not a facet): checkpoints written before they carried
    # one must still match IsEmpty("tenant") (memhub.records).
    # Every value the binding converts costs microseconds on each step of a graph: what
    # no filter reads is packed into one string.
    # "user_id" / "app_id": the user a checkpoint's run was for, whose threads forget_user
    # deletes (memhub.engine.lifecycle.erase).
    "checkpoints": IndexSpec(
        keyword=("thread_id", "checkpoint_ns", "checkpoint_id", "kind", "run_id", "tenant")
        + ("user_id", "app_id"),
        integer=("seq",),
        hot=("tenant",),
        packed=("parent_checkpoint_id", "versions", "inline", "checkpoint", "metadata")
        + ("channel", "version", "value"),
    ),
    "checkpoint_writes": IndexSpec(
        keyword=("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "tenant"),
        hot=("tenant",),
        packed=("task_path", "idx", "channel", "value"),
    ),
}
