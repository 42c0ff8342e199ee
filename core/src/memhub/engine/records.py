"""Payloads as stored, and their public views (pure functions)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

from memhub.engine.payload import Memory, as_memory, as_stored
from memhub.engine.valid_time import covers, valid_fields
from memhub.models import Atom
from memhub.redact import redact_value
from memhub.scope import SCOPE_KEYS, Scope
from memhub.text import content_hash, infer_epistemic, infer_polarity

HIDDEN = "[governed payload hidden: {state}]"
T = TypeVar("T")
GOVERNED = ("sealed", "tombstoned")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_payload(
    atom_id: str,
    content: str,
    *,
    layer: str,
    scope: Scope,
    source: str = "agent",
    epistemic: str | None = None,
    polarity: str | None = None,
    chain_root: str | None = None,
    version: int = 1,
    status: str = "active",
    metadata: dict[str, Any] | None = None,
    **extra: Any,
) -> Memory:
    """A new memory, version ``version`` of its chain; ``extra`` are the layer's own keys
    (``Memory``: evidence, procedure, role, ...), a ``None`` one left out.

    Its valid time is read from ``content`` against ``occurred_at`` (``valid_time``) unless
    ``extra`` gives ``valid_from``."""
    unknown = extra.keys() - Memory.__optional_keys__
    if unknown:
        raise TypeError(f"not keys of a memory: {', '.join(sorted(unknown))}")
    at = now()
    payload: dict[str, Any] = {
        "id": atom_id,
        "content": content,
        "layer": layer,
        "epistemic": epistemic or infer_epistemic(content),
        "polarity": polarity or infer_polarity(content),
        "status": status,
        "exposure": "visible",
        "source": source,
        "created_at": at,
        "updated_at": at,
        "rev": 1,
        "version": version,
        "chain_root": chain_root or atom_id,
        "content_hash": content_hash(content),
        "metadata": redact_value(metadata) if metadata else {},
        **scope.payload(),
    }
    if extra.get("valid_from") is None:
        payload.update(valid_fields(content, layer, extra.get("occurred_at"), at))
    payload.update({k: v for k, v in extra.items() if v is not None})
    return as_memory(payload)


def governed_remains(payload: Memory, state: str) -> Memory:
    """What a sealed or tombstoned memory keeps: identity, scope, times and links, no text.

    Tombstones keep only the id and times (plus tenant, so access checks still work).
    """
    keep = (
        ["id", "tenant", "created_at"]
        if state == "tombstoned"
        else [
            "id",
            "layer",
            "epistemic",
            "status",
            "source",
            "created_at",
            "version",
            "chain_root",
            "supersedes",
            "superseded_by",
            "lesson_of",
            "lessons",
            *SCOPE_KEYS,
        ]
    )
    stored = as_stored(payload)
    remains = as_memory({k: stored[k] for k in keep if k in stored})
    remains.update({"exposure": state, "updated_at": now(), "rev": payload.get("rev", 0) + 1})
    return remains


def scope_of(payload: Memory) -> dict[str, str]:
    """The scope keys the memory carries, in ``SCOPE_KEYS`` order."""
    stored = as_stored(payload)
    return {k: stored[k] for k in SCOPE_KEYS if k in stored}


def valid_of(payload: Memory) -> dict[str, str | None]:
    """A memory's valid time as the reads show it; one stored before valid time began when
    it was said (or written) and, replaced or negated, ended at its last update."""
    past = payload.get("status") in ("superseded", "negated")
    return {
        "valid_from": payload.get("valid_from")
        or payload.get("occurred_at")
        or payload.get("created_at"),
        "valid_to": payload.get("valid_to") or (payload.get("updated_at") if past else None),
        "valid_precision": payload.get("valid_precision") or "instant",
    }


def held_at(payload: Memory, at: datetime | None) -> bool:
    """Whether ``payload`` held at ``at`` (an ``as_of`` read); every memory holds at ``None``."""
    if at is None:
        return True
    valid = valid_of(payload)
    return covers(valid["valid_from"], valid["valid_to"], at)


def without_kept_parts(found: list[T]) -> list[T]:
    """``found`` (memories, or pairs led by one) less the standing parts of a superseded
    memory that is found too: an ``as_of`` read before the change finds the whole memory,
    which says the part already ("I work at Acme as a data engineer" and, kept from it when
    the employer changed, "I'm a data engineer")."""
    ids = {_payload(f)["id"] for f in found}
    return [f for f in found if _payload(f).get("kept_from") not in ids]


def _payload(found: Any) -> Memory:
    return as_memory(found[0] if isinstance(found, tuple) else found)


def shown_content(payload: Memory) -> str:
    state = payload.get("exposure", "visible")
    return HIDDEN.format(state=state) if state in GOVERNED else payload.get("content", "")


def to_atom(payload: Memory) -> Atom:
    return Atom(
        atom_id=payload["id"],
        content=shown_content(payload),
        layer=payload.get("layer", "fact"),
        epistemic=payload.get("epistemic"),
        polarity=payload.get("polarity"),
        status=payload.get("status", "active"),
        exposure_state=payload.get("exposure", "visible"),
        source=payload.get("source"),
        created_at=payload["created_at"],
        updated_at=payload.get("updated_at"),
        **valid_of(payload),
        version=payload.get("version", 1),
        scope=scope_of(payload),
        metadata=payload.get("metadata") or {},
    )
