"""The correct/govern rules of the HMG guide, as pure checks.

Each check returns the new value (or ``None`` for a no-op) or raises
``InvalidTransitionError`` with a message that says what to do instead.
"""

from __future__ import annotations

from typing import TypeVar

from memhub.errors import InvalidInputError, InvalidTransitionError

A = TypeVar("A", bound=str)

_RANK = {"possible": 0, "actual": 1, "necessary": 2}


def one_of(action: str, allowed: tuple[A, ...], what: str) -> A:
    """``action`` as one of ``allowed`` (a ``Literal``'s args), or a clear error."""
    for known in allowed:
        if action == known:
            return known
    raise InvalidInputError(f"unknown {what} {action!r}")


def check_correctable(action: str, status: str, exposure: str, superseded_by: str | None) -> None:
    if exposure != "visible":
        raise InvalidTransitionError(
            f"cannot {action} a {exposure} atom"
            + ("; release it first" if exposure == "quarantined" else ": its content is governed")
        )
    if status == "superseded":
        raise InvalidTransitionError(
            f"cannot {action} a superseded atom; "
            f"{'update' if action == 'update' else 'correct'} the latest version {superseded_by}"
        )
    if status == "archived":
        raise InvalidTransitionError(f"cannot {action} an archived (deleted) atom")
    if status == "negated" and action != "replace":
        raise InvalidTransitionError(
            f"cannot {action} a negated atom; the recovery path is replace with the right content"
        )


def epistemic_after(action: str, current: str) -> str | None:
    """The epistemic level after a confirm/demote, or ``None`` when already there."""
    if action == "confirm_actual":
        if current == "necessary":
            raise InvalidTransitionError(
                "confirm_actual cannot lower a necessary atom; demote it (to possible) first, "
                "then confirm_actual"
            )
        return None if current == "actual" else "actual"
    if action == "confirm_necessary":
        if current == "possible":
            raise InvalidTransitionError(
                "confirm_necessary applies to an actual atom; confirm_actual it first"
            )
        return None if current == "necessary" else "necessary"
    if action == "demote":
        return None if current == "possible" else "possible"
    raise ValueError(action)


def exposure_after(action: str, current: str) -> str | None:
    """The exposure after a govern action, or ``None`` for a no-op."""
    if current == "tombstoned":
        raise InvalidTransitionError("the atom is tombstoned: nothing is left to govern")
    if action == "quarantine":
        if current == "sealed":
            raise InvalidTransitionError("a sealed atom cannot be quarantined")
        return None if current == "quarantined" else "quarantined"
    if action == "release":
        if current != "quarantined":
            raise InvalidTransitionError(
                f"release applies to a quarantined atom, this one is {current}"
            )
        return "visible"
    if action in ("seal", "derive_lesson"):
        if current == "sealed":
            if action == "derive_lesson":
                raise InvalidTransitionError(
                    "the atom is already sealed; store the lesson with memorize"
                )
            return None
        return "sealed"
    if action == "tombstone":
        return "tombstoned"
    raise ValueError(action)


def is_upgrade(before: str, after: str) -> bool:
    return _RANK[after] > _RANK[before]
