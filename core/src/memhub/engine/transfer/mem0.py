"""Read a mem0 OSS store as memhub export lines (``memhub.engine.transfer.jsonl``), for ``import_``.

A mem0 store is two things: its vector store (here: Qdrant in local mode, a folder
with ``meta.json`` and ``collection/<name>/``) holding the current text of each
memory, and ``history.db`` (SQLite) with one row per ADD, UPDATE and DELETE.

Each mem0 memory becomes one memhub version chain of ``fact`` memories:

- ``user_id`` / ``agent_id`` / ``run_id`` become user / agent / session;
  ``role``, ``actor_id``, mem0's own id and any custom metadata go to ``metadata``;
- every history row that wrote a text (ADD, UPDATE) becomes a version created at
  that row's time, each superseding the one before, with audit events saying so;
  the current version keeps mem0's id (the same 128 bits as a ULID);
- a deleted memory is left out, its old text too, unless ``include_deleted``: then
  its versions come over and the last one is archived (as ``delete`` leaves it).
  mem0 keeps no user, agent or run for a deleted memory (they were on its point),
  so it comes over unscoped: found by id and in exports, not by a user's reads.

Ids are derived from mem0's (memories and history rows), so importing the same
store twice adds nothing. The folder is read from a copy: qdrant-client's local
mode takes a lock on it, and mem0 may hold it.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ulid import ULID

from memhub.engine.records import now
from memhub.engine.transfer import jsonl
from memhub.errors import InvalidInputError
from memhub.text import content_hash, infer_epistemic, infer_polarity

_SCOPE = {"user_id": "user_id", "agent_id": "agent_id", "run_id": "session_id"}
_INTERNAL = {"data", "hash", "created_at", "updated_at", "text_lemmatized", *_SCOPE}
_EVENTS = uuid.UUID("6f1e1c55-7d8e-4a55-9d2a-2b4b1f0c6a11")  # namespace of derived event ids


def export_lines(
    path: Path, *, include_deleted: bool = False, app_id: str | None = None
) -> Iterator[str]:
    """The store at ``path`` as export lines: a header, then one line per memory version.

    ``path``: a folder holding ``history.db`` and the Qdrant local folder (itself, or a
    folder right below it). ``app_id``: the app the memories are filed under.
    """
    qdrant_dir, history_db = _locate(path)
    points = _points(qdrant_dir)
    rows = _history(history_db) if history_db else {}
    yield jsonl.dumps(
        jsonl.header("mem0", 0, vectors=False, filters={}, at=now()) | {"source": "mem0"}
    )
    for mem0_id in sorted(set(points) | set(rows)):
        point = points.get(mem0_id)
        if point is None and not include_deleted:
            continue
        for line in _chain(mem0_id, point, rows.get(mem0_id, []), app_id):
            yield jsonl.dumps(line)


def _locate(path: Path) -> tuple[Path, Path | None]:
    if not path.is_dir():
        raise InvalidInputError(
            f"{path} is not a folder (a mem0 store: its Qdrant folder and history.db)"
        )
    candidates = [path, *sorted(p for p in path.iterdir() if p.is_dir())]
    qdrant = next(
        (p for p in candidates if (p / "meta.json").is_file() and (p / "collection").is_dir()), None
    )
    if qdrant is None:
        raise InvalidInputError(
            f"no Qdrant local store (meta.json, collection/) in {path} or right below it"
        )
    history = next(
        (p / "history.db" for p in (path, qdrant, path.parent) if (p / "history.db").is_file()),
        None,
    )
    return qdrant, history


def _points(folder: Path) -> dict[str, dict[str, Any]]:
    """mem0 id -> payload of every point of the memories collection (read from a copy)."""
    from qdrant_client import QdrantClient

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "qdrant"
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".lock"))
        client = QdrantClient(path=str(copy))
        try:
            names = [c.name for c in client.get_collections().collections]
            memories = [n for n in names if not n.endswith("_entities") and n != "mem0migrations"]
            name = "mem0" if "mem0" in memories else (memories[0] if len(memories) == 1 else None)
            if name is None:
                raise InvalidInputError(f"cannot tell which collection holds the memories: {names}")
            found: dict[str, dict[str, Any]] = {}
            offset = None
            while True:
                page, offset = client.scroll(name, limit=256, offset=offset, with_payload=True)
                found.update({str(p.id): dict(p.payload or {}) for p in page})
                if offset is None:
                    return found
        finally:
            client.close()


def _history(db: Path) -> dict[str, list[dict[str, Any]]]:
    """mem0 id -> its history rows, oldest first."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        connection.row_factory = sqlite3.Row
        rows = connection.execute("SELECT * FROM history").fetchall()
    except sqlite3.Error as err:
        raise InvalidInputError(f"cannot read mem0's history at {db}: {err}") from err
    finally:
        connection.close()
    by_memory: dict[str, list[dict[str, Any]]] = {}
    for row in map(dict, rows):
        by_memory.setdefault(str(row["memory_id"]), []).append(row)
    for memory_rows in by_memory.values():
        memory_rows.sort(
            key=lambda r: (_time(r.get("updated_at") or r.get("created_at")), r["event"] != "ADD")
        )
    return by_memory


def _time(value: Any) -> str:
    """mem0's ISO times as memhub writes them (UTC, milliseconds, ``Z``)."""
    if not value:
        return now()
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        return now()
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _ulid(value: str) -> str:
    try:
        return str(ULID.from_uuid(uuid.UUID(value)))
    except ValueError:  # not a UUID: derive one
        return str(ULID.from_uuid(uuid.uuid5(_EVENTS, value)))


def _chain(
    mem0_id: str, point: dict[str, Any] | None, rows: list[dict[str, Any]], app_id: str | None
) -> list[dict[str, Any]]:
    """The versions of one mem0 memory, oldest first, as export lines."""
    written = [r for r in rows if r.get("event") in ("ADD", "UPDATE") and r.get("new_memory")]
    deleted = next((r for r in reversed(rows) if r.get("event") == "DELETE"), None)
    base = point or {}
    if point is None and not written and deleted is not None and deleted.get("old_memory"):
        written = [
            {
                **deleted,
                "id": f"{deleted['id']}-text",
                "new_memory": deleted["old_memory"],
                "event": "ADD",
            }
        ]
    steps = [
        (str(r["id"]), str(r["new_memory"]), _time(r.get("updated_at") or r.get("created_at")))
        for r in written
    ]
    if point is not None:
        text, at = (
            str(point.get("data", "")),
            _time(point.get("updated_at") or point.get("created_at")),
        )
        if not steps or steps[-1][1] != text:
            steps.append((mem0_id, text, at))
        steps[-1] = (mem0_id, text, steps[-1][2])  # the current version keeps mem0's id
    steps = [s for s in steps if s[1].strip()]
    if not steps:
        return []
    ids = [_ulid(s[0]) for s in steps]
    lines = []
    for n, ((source, text, at), atom_id) in enumerate(zip(steps, ids, strict=True)):
        last = n == len(steps) - 1
        status = ("archived" if point is None else "active") if last else "superseded"
        payload = {
            "id": atom_id,
            "content": text,
            "layer": "fact",
            "epistemic": infer_epistemic(text),
            "polarity": infer_polarity(text),
            "status": status,
            "exposure": "visible",
            "source": "import",
            "created_at": at,
            "updated_at": _time(deleted.get("updated_at"))
            if last and point is None and deleted
            else at,
            "rev": 1,
            "version": n + 1,
            "chain_root": ids[0],
            "content_hash": content_hash(text),
            "metadata": {
                "mem0_id": mem0_id,
                **{k: v for k, v in base.items() if k not in _INTERNAL},
            },
            **({"app_id": app_id} if app_id else {}),
            **{ours: base[theirs] for theirs, ours in _SCOPE.items() if base.get(theirs)},
        }
        if n:
            payload["supersedes"] = ids[n - 1]
        if not last:
            payload["superseded_by"] = ids[n + 1]
            payload["valid_to"] = steps[n + 1][2]  # mem0 knows when, not the time words
        payload["valid_from"] = at
        events = [
            _event(
                atom_id,
                source,
                "created",
                "mem0 " + ("ADD" if n == 0 else "UPDATE"),
                at,
                to="active",
            )
        ]
        if not last:
            events.append(
                _event(
                    atom_id,
                    source,
                    "replace",
                    "mem0 UPDATE",
                    steps[n + 1][2],
                    before="active",
                    to="superseded",
                    related=ids[n + 1],
                )
            )
        elif point is None and deleted is not None:
            events.append(
                _event(
                    atom_id,
                    source,
                    "delete",
                    "mem0 DELETE",
                    _time(deleted.get("updated_at")),
                    before="active",
                    to="archived",
                )
            )
        lines.append({"id": atom_id, "memory": payload, "events": events})
    return lines


def _event(
    atom_id: str,
    source: str,
    action: str,
    reason: str,
    at: str,
    *,
    to: str,
    before: str | None = None,
    related: str | None = None,
) -> dict[str, Any]:
    event = {
        "id": str(uuid.uuid5(_EVENTS, f"{source}/{atom_id}/{action}")),
        "atom_id": atom_id,
        "kind": "status",
        "action": action,
        "from": before,
        "to": to,
        "reason": reason,
        "by": "import",
        "at": at,
    }
    if related:
        event["related"] = related
    return event
