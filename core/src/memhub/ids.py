"""Memory ids are ULIDs; Qdrant stores the same 128 bits as a UUID point id."""

from __future__ import annotations

import uuid

from ulid import ULID

from memhub.errors import InvalidInputError


def new_id() -> str:
    """A fresh ULID string: sortable by creation time."""
    return str(ULID())


def to_point_id(memory_id: str) -> str:
    """The Qdrant point id (UUID string) for a ULID memory id."""
    try:
        return str(ULID.from_str(memory_id).to_uuid())
    except (ValueError, TypeError) as err:
        raise InvalidInputError(f"not a memory id: {memory_id!r}") from err


def from_point_id(point_id: str | uuid.UUID) -> str:
    """The ULID memory id for a Qdrant point id."""
    value = point_id if isinstance(point_id, uuid.UUID) else uuid.UUID(str(point_id))
    return str(ULID.from_uuid(value))


def is_memory_id(value: str) -> bool:
    try:
        ULID.from_str(value)
    except (ValueError, TypeError):
        return False
    return True
