"""The checkpointer's two record collections, registered with memhub at import.

``checkpoints`` holds each checkpoint (``kind="checkpoint"``) and the channel values it
refers to; ``checkpoint_writes`` the pending writes of its tasks. Both are payload only.

``forget_user`` deletes a user's threads whole, as ``delete_thread`` does: a checkpoint
that names a ``user_id`` (and an ``app_id``; the checkpointer records the run's on each
one) ties its thread to that user, and every record of the thread, in both collections,
goes. Those hold the conversation and whatever a node put in the state (the memory block
``memory_search_node`` recalled).

The package names this module under the entry-point group ``memhub.records``, so a
process that never imported the adapter (a memhub server serving ``client.records`` and
``forget_user`` over REST) knows the collections too.
"""

from __future__ import annotations

from memhub.store.base import IndexSpec
from memhub.store.schema import ErasedBy, register_collection

# "tenant" is hot (its own index, not a facet): checkpoints written before they carried
# one must still match IsEmpty("tenant") (memhub.store.schema.in_tenant).
# Every value the binding converts costs microseconds on each step of a graph: what
# no filter reads is packed into one string.
# "user_id" / "app_id": the user a checkpoint's run was for, whose threads forget_user
# deletes.
CHECKPOINTS = register_collection(
    "checkpoints",
    IndexSpec(
        keyword=("thread_id", "checkpoint_ns", "checkpoint_id", "kind", "run_id", "tenant")
        + ("user_id", "app_id"),
        integer=("seq",),
        hot=("tenant",),
        packed=("parent_checkpoint_id", "versions", "inline", "checkpoint", "metadata")
        + ("channel", "version", "value"),
    ),
    erase=ErasedBy(
        unit="thread_id",
        marks=(("kind", "checkpoint"),),
        reaches=("checkpoint_writes", "checkpoints"),
    ),
)
WRITES = register_collection(
    "checkpoint_writes",
    IndexSpec(
        keyword=("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "tenant"),
        hot=("tenant",),
        packed=("task_path", "idx", "channel", "value"),
    ),
)
