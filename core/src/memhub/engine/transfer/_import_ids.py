"""Which ids an import's memories take in the importing tenant.

A point id is a memory id's 128 bits (``memhub.ids``), one space for every tenant of a
store. An import must neither skip a memory because another tenant holds its id (that
tenant could take the ids of an export first and keep its owner from importing it) nor
answer differently when one does (that would tell whether the id exists elsewhere). So a
line's id, and every id a line refers to, is *placed* in the importing tenant:

- free in the store, or held by the importing tenant: it stays (an export imported into
  its own tenant comes back exactly as it left; what the tenant holds is skipped);
- held by another tenant: it becomes a fresh id derived from the store's import secret,
  the tenant and the id (the first free one of a few tries), and every reference to it in
  the same import is rewritten the same way. Derived, not random: importing the file
  again finds the same ids and skips them. Secret: another tenant cannot compute the ids
  to take them first. The new id keeps the original's time part, so it sorts where the
  original did.

The other way (point ids derived from the tenant) would keep the ids themselves but
change every point id of every existing store and every lookup by id in the engine.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from memhub.engine.core import Engine
from memhub.errors import InvalidInputError, MemHubError
from memhub.ids import from_point_id, to_point_id
from memhub.store.base import Match, StoredPoint, Where

ONE = ("chain_root", "supersedes", "superseded_by", "context_id")
"""The fields of a memory that name one other memory."""
MANY = ("evidence", "related", "lesson_of", "lessons")
"""The fields of a memory that list other memories."""
TRIES = 8
"""Derived ids tried per id: with the secret, a second one is needed only by a 2^-80 chance."""

_SECRET_ID = str(uuid.uuid5(uuid.NAMESPACE_URL, "memhub:meta:import-secret"))
_EVENTS = uuid.UUID("0d7c1f5e-3a52-4c1b-9a0e-6b2f1d8e4c37")
_FREE = object()


@dataclass
class Placement:
    """Where the point ids an import looked up go in the importing tenant."""

    at: dict[str, str] = field(default_factory=dict)
    """Point id as the file has it -> point id in the importing tenant (the same unless
    another tenant holds it)."""
    held: set[str] = field(default_factory=set)
    """Point ids (as placed) the importing tenant already holds: their lines are skipped."""

    def moved(self) -> bool:
        """Whether any id was placed elsewhere than the file says."""
        return any(pid != placed for pid, placed in self.at.items())


def point_id(memory_id: Any) -> str | None:
    """The point id of a memory id, ``None`` for anything that is not one."""
    try:
        return to_point_id(memory_id)
    except InvalidInputError:
        return None


def references(payload: dict[str, Any], events: Iterable[dict[str, Any]]) -> Iterator[Any]:
    """Every value of ``payload`` (and of its audit ``events``) that names another memory."""
    for key in ONE:
        if payload.get(key):
            yield payload[key]
    for key in MANY:
        value = payload.get(key)
        if isinstance(value, list):
            yield from value
    for event in events:
        if event.get("related"):
            yield event["related"]


def referenced(payload: dict[str, Any], events: Iterable[dict[str, Any]]) -> set[str]:
    """The point ids of the memories a line refers to."""
    return {pid for value in references(payload, events) if (pid := point_id(value))}


async def secret(engine: Engine) -> bytes:
    """The store's import secret (made on first use; it never leaves the store)."""
    found = await engine.store.retrieve("meta", [_SECRET_ID])
    if not found:
        async with engine.write_lock:
            found = await engine.store.retrieve("meta", [_SECRET_ID])
            if not found:
                made = StoredPoint(
                    _SECRET_ID, {"kind": "import_secret", "key": secrets.token_hex(32)}
                )
                await engine.store.upsert("meta", [made])
                found = [made]
    return bytes.fromhex(found[0].payload["key"])


def derived(key: bytes, tenant: str, pid: str, attempt: int) -> str:
    """The point id that ``pid`` takes in ``tenant`` when another tenant holds it."""
    digest = hashlib.blake2b(
        f"{tenant}\x00{pid}\x00{attempt}".encode(), key=key, digest_size=10
    ).digest()
    return str(uuid.UUID(bytes=uuid.UUID(pid).bytes[:6] + digest))


async def place(engine: Engine, tenant: str, pids: Iterable[str]) -> Placement:
    """Place ``pids`` in ``tenant``: one lookup by id, then one more per round of ids that
    another tenant holds (none in an import into an empty store or into its own tenant)."""
    out = Placement()
    key = b""
    todo = {pid: pid for pid in pids}  # as the file has it -> candidate
    for attempt in range(TRIES + 1):
        if not todo:
            return out
        owners = await _owners(engine, tenant, list(set(todo.values())))
        later = {}
        for pid, candidate in todo.items():
            owner = owners.get(candidate, _FREE)
            if owner is _FREE or owner == tenant:
                out.at[pid] = candidate
                if owner == tenant:
                    out.held.add(candidate)
            else:
                key = key or await secret(engine)
                later[pid] = derived(key, tenant, pid, attempt)
        todo = later
    if not todo:
        return out
    raise MemHubError(
        f"no free id for {len(todo)} imported memories after {TRIES} tries: nothing of this "
        "batch was written; run the import again"
    )


async def _owners(engine: Engine, tenant: str, pids: list[str]) -> dict[str, Any]:
    """The tenant of each of ``pids`` the store holds.

    Which exist is asked first, without payloads: an import into an empty store finds
    none and reads nothing more. Their payloads are read only if the store holds anything
    of another tenant: reading them made an import run again (every id found) 3x slower
    (20k memories: 31k -> 10k per CPU-second of the importing process). The count comes
    after the lookup, so a point it found was there when no other tenant had any.
    """
    store = engine.store
    there = [p.id for p in await store.retrieve("memories", pids, with_payload=False)]
    if not there:
        return {}
    if not await store.count("memories", Where(must_not=(Match("tenant", tenant),))):
        return dict.fromkeys(there, tenant)
    return {p.id: p.payload.get("tenant") for p in await store.retrieve("memories", there)}


def relocate(
    payload: dict[str, Any], events: list[dict[str, Any]], at: dict[str, str], tenant: str
) -> None:
    """Rewrite a memory line (in place) to the ids its memory and references take (``at``)."""

    def moved(value: Any) -> Any:
        pid = point_id(value)
        if pid is None or at.get(pid, pid) == pid:
            return value
        return from_point_id(at[pid])

    old_id = payload["id"]
    new_id = moved(old_id)
    payload["id"] = new_id
    for name in ONE:
        if payload.get(name):
            payload[name] = moved(payload[name])
    for name in MANY:
        if isinstance(payload.get(name), list):
            payload[name] = [moved(v) for v in payload[name]]
    for event in events:
        if new_id != old_id:  # its steps are the new memory's, under ids of their own
            event["atom_id"] = new_id
            event["id"] = str(uuid.uuid5(_EVENTS, f"{tenant}/{event['id']}"))
        if event.get("related"):
            event["related"] = moved(event["related"])


__all__ = [
    "Placement",
    "derived",
    "place",
    "point_id",
    "referenced",
    "references",
    "relocate",
    "secret",
]
