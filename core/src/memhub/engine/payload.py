"""The records as stored: one typed definition of a memory and of an audit event.

A store hands back plain JSON payloads (``StoredPoint.payload``). The engine reads a
``memories`` payload as a ``Memory`` (``as_memory``) and hands one back to the store as
plain JSON (``as_stored``), so every key the engine, the read path and the faces use is
checked by the type checker: a misspelled key is an error, not a silent ``None``.

Records of another kind share the ``memories`` collection (an adapter's store items,
layers ``ITEM_LAYERS``); they are written by ``memhub.records`` and keep their own keys.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, cast

__all__ = [
    "CHAT_LAYERS",
    "ITEM_LAYERS",
    "Event",
    "Memory",
    "MemoryLayer",
    "ReplaceStep",
    "as_event",
    "as_memory",
    "as_stored",
]

MemoryLayer = Literal[
    "raw", "fact", "profile", "derived", "procedure", "handoff", "lesson", "item", "item_text"
]

CHAT_LAYERS: tuple[MemoryLayer, ...] = ("fact", "profile")
"""The layers a chat write extracts into (``providers.types.Layer``): what it dedupes and
judges against, and what a MemHub search reads besides procedures and derived memories."""

ITEM_LAYERS: tuple[MemoryLayer, ...] = ("item", "item_text")
"""Adapters' store items (``client.records``): in ``memories``, never memories."""


class ReplaceStep(TypedDict):
    """The audit step a pending new version carries until it is activated (``replace_version``)."""

    action: str
    reason: str
    before: str


class Memory(TypedDict, total=False):
    """A ``memories`` payload: one memory (an atom in the HMG vocabulary), as stored.

    Every memory has the keys ``engine.records.new_payload`` writes; a sealed or
    tombstoned one keeps only those ``governed_remains`` keeps. The values a read shows
    are those of ``memhub.models.Atom`` (its ``Literal`` types list the states); the
    comments below group the rest.
    """

    id: str
    content: str
    layer: str
    epistemic: str
    polarity: str
    status: str
    exposure: str
    source: str
    created_at: str
    updated_at: str
    # valid time (memhub.engine.valid_time): when it held in the world; ``valid_to`` is set
    # when a newer version or a negation ends it
    valid_from: str
    valid_to: str
    valid_precision: str
    rev: int
    version: int
    chain_root: str
    content_hash: str
    metadata: dict[str, Any]
    # scope (memhub.scope.SCOPE_KEYS)
    tenant: str
    user_id: str
    app_id: str
    agent_id: str
    session_id: str
    workspace: str
    repository: str
    branch: str
    # relations
    supersedes: str
    superseded_by: str
    evidence: list[str]
    related: list[str]
    kept_from: str  # the superseded memory this one is the standing part of (write._keep_rest)
    lesson_of: list[str]
    lessons: list[str]
    # an extracted memory: a time-bound item, and the attribute slots it states (slots.py)
    proactive: bool
    slots: list[str]
    # a raw conversation turn (layer "raw")
    role: str
    message_id: str
    speaker: str
    occurred_at: str
    context_id: str  # the turn it is indexed with (memhub.engine.conversation)
    # a procedure (layer "procedure"): the Procedure model, dumped
    kind: str
    procedure: dict[str, Any]
    boundary_scope: str
    # written by the engine: the access key (engine.access) and a pending replace's step
    ak: list[str]
    replace_step: ReplaceStep


Event = TypedDict(
    "Event",
    {
        "atom_id": str,
        "kind": str,
        "action": str,
        "from": Any,
        "to": Any,
        "reason": str | None,
        "by": str,
        "at": str,
        "tenant": str,
        "related": str,
    },
    total=False,
)
"""One step of the audit log (``events``): what happened to which memory, never its text."""


def as_memory(payload: dict[str, Any]) -> Memory:
    """A payload read from ``memories`` as the record it is (no copy, no check)."""
    return cast(Memory, payload)


def as_event(payload: dict[str, Any]) -> Event:
    """A payload read from ``events`` as the record it is (no copy, no check)."""
    return cast(Event, payload)


def as_stored(record: Memory | Event) -> dict[str, Any]:
    """A record as the store takes it: plain JSON (no copy)."""
    return cast(dict[str, Any], record)
