"""The export format: JSON Lines, a header line then one line per memory (pure functions).

Header::

    {"format": "memhub-export", "version": 1, "exported_at": "...",
     "embedder": {"name": "...", "dim": 384}, "vectors": false, "filters": {...}}

Memory line (every version of every memory, in any status and exposure)::

    {"id": "01HK...", "memory": {...the stored record...},
     "events": [{"id": "<uuid>", "atom_id": "01HK...", "kind": "status", ...}],
     "vectors": {"dense": "<base64>", "bm25": {"indices": [...], "values": [...]}}}

``memory`` holds the status, exposure, epistemic level, scope, times and relations
(``supersedes``/``superseded_by``/``chain_root``/``version``, ``lessons``/``lesson_of``,
``evidence``) exactly as stored; a sealed or tombstoned memory is stored without its
text, so it leaves without it. ``vectors`` is there only with ``include_vectors``;
the header's ``embedder`` says whether an importing store can reuse them. The dense
vector is base64 of its little-endian float32 values (a list of numbers is read
too): parsing 384 decimal numbers per line was most of an import's time.
"""

from __future__ import annotations

import array
import base64
import re
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

from memhub.engine.access import ACCESS_KEY
from memhub.engine.conversation import dated_text
from memhub.engine.payload import Memory, as_memory
from memhub.engine.procedures import vector_text
from memhub.engine.records import GOVERNED, valid_of
from memhub.engine.valid_time import said_at
from memhub.errors import InvalidInputError
from memhub.ids import to_point_id
from memhub.models import Procedure
from memhub.redact import redact_many
from memhub.store.base import SparseVector
from memhub.text import content_hash

FORMAT = "memhub-export"
VERSION = 1
STATUSES = ("active", "superseded", "negated", "archived")
EXPOSURES = ("visible", "quarantined", "sealed", "tombstoned")
_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""A point id as the store spells it (what an export writes): no need to parse it again."""
_INTERNAL = (ACCESS_KEY,)  # derived from the other fields, recomputed on import


def header(
    embedder_name: str, dim: int, *, vectors: bool, filters: dict[str, str], at: str
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": at,
        "embedder": {"name": embedder_name, "dim": dim},
        "vectors": vectors,
        "filters": filters,
    }


def memory_line(
    payload: dict[str, Any],
    events: list[dict[str, Any]],
    dense: Sequence[float] | None,
    sparse: SparseVector | None,
) -> dict[str, Any]:
    line: dict[str, Any] = {
        "id": payload["id"],
        "memory": _without_internal(payload),
        "events": events,
    }
    if dense is not None or sparse is not None:
        line["vectors"] = {
            "dense": _pack(dense) if dense is not None else None,
            "bm25": {"indices": sparse.indices, "values": sparse.values} if sparse else None,
        }
    return line


def _without_internal(payload: dict[str, Any]) -> dict[str, Any]:
    memory = payload.copy()
    for key in _INTERNAL:
        memory.pop(key, None)
    return memory


def _pack(dense: Sequence[float]) -> str:
    return base64.b64encode(np.asarray(dense, dtype="<f4").tobytes()).decode("ascii")


Vector = list[float] | np.ndarray
"""A dense vector read from a line: base64 stays a float32 array until it is written
(``as_floats``), so a line the import skips never pays for 384 Python floats (~17 us)."""


def as_floats(dense: Vector | None) -> Sequence[float] | None:
    """``dense`` as a store takes it. An ``array('f')``, not a list: making 384 Python
    floats took ~15 us, and the Qdrant Edge binding reads an array in ~2 us more than a
    list (bench/README.md)."""
    if isinstance(dense, np.ndarray):
        return float32s(dense.astype("<f4", copy=False).tobytes())
    return dense


def float32s(data: bytes) -> array.array[float]:
    """Little-endian float32 values (as an export packs them) as an ``array('f')``."""
    values = array.array("f", data)
    if sys.byteorder != "little":
        values.byteswap()
    return values


def _unpack(dense: Any) -> Vector:
    if isinstance(dense, str):
        return np.frombuffer(base64.b64decode(dense, validate=True), "<f4")
    if isinstance(dense, list):
        return [float(x) for x in dense]
    raise ValueError("'vectors.dense' must be base64 text or a list of numbers")


def dumps(obj: dict[str, Any]) -> str:
    """One compact line. orjson: the standard library's encoder and decoder were a third of
    an export's and half of an import's parsing time (bench/README.md)."""
    return orjson.dumps(obj).decode()


@dataclass
class Record:
    """One memory ready to import: redacted, checked, with the text to embed if any."""

    line: int
    payload: dict[str, Any]
    events: list[dict[str, Any]]
    dense: Vector | None
    sparse: SparseVector | None
    text: str | None
    """What the vectors are made from (``None``: a governed memory, stored without vectors)."""
    changed: bool
    """Redaction changed its text: exported vectors (made from the secret) are not reused."""
    pid: str
    """The point id (the memory id's 128 bits as a UUID)."""
    governed: bool = False
    """Sealed or tombstoned: stored without text or vectors."""


def read_header(text: str) -> dict[str, Any] | None:
    """The header if ``text`` (the first line) is one, else ``None``."""
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(obj, dict) and obj.get("format") == FORMAT:
        if obj.get("version") != VERSION:
            raise InvalidInputError(
                f"export format version {obj.get('version')!r} is not supported "
                f"(expected {VERSION})"
            )
        return obj
    return None


_ID_AT = len('{"id":"')


def peek_id(text: str) -> str | None:
    """The point id of a memory line as ``dumps(memory_line(...))`` writes it (``"id"``
    first), read without parsing the line; ``None`` for any other line. A hint only: the
    line is checked in full (``parse_unredacted``) before anything of it is used."""
    end = _ID_AT + 26
    if not text.startswith('{"id":"') or text[end : end + 1] != '"':
        return None
    try:
        return to_point_id(text[_ID_AT:end])
    except InvalidInputError:
        return None


def parse_line(text: str, line: int, dim: int | None) -> Record:
    """One memory line, checked and redacted (``parse_unredacted`` + ``redact_records``)."""
    record = parse_unredacted(text, line, dim)
    redact_records([record])
    return record


def parse_unredacted(text: str, line: int, dim: int | None) -> Record:
    """One memory line, checked; ``InvalidInputError`` naming the line if it is not one.
    Nothing of it is redacted yet and ``text`` is not set: ``redact_records`` does both,
    for a whole batch at once.

    ``dim``: the dense size the header announced (vectors of another size are refused).
    """
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise InvalidInputError(f"line {line}: not JSON ({err.msg})") from err
    try:
        return _record(obj, line, dim)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        if isinstance(err, InvalidInputError):
            raise
        raise InvalidInputError(
            f"line {line}: not a memory record ({type(err).__name__}: {err})"
        ) from err


def _check(ok: bool, line: int, message: str) -> None:
    if not ok:
        raise InvalidInputError(f"line {line}: {message}")


def _record(obj: Any, line: int, dim: int | None) -> Record:
    _check(isinstance(obj, dict), line, "not a JSON object")
    payload = obj["memory"]
    _check(isinstance(payload, dict), line, "'memory' must be an object")
    atom_id = payload.get("id")
    _check(
        isinstance(atom_id, str) and len(atom_id) == 26,
        line,
        f"'memory.id' is not a memory id: {atom_id!r}",
    )
    try:
        pid = to_point_id(atom_id)
    except InvalidInputError:
        raise InvalidInputError(
            f"line {line}: 'memory.id' is not a memory id: {atom_id!r}"
        ) from None
    _check(obj.get("id", atom_id) == atom_id, line, "'id' and 'memory.id' differ")
    _check(isinstance(payload.get("created_at"), str), line, "'memory.created_at' is missing")
    exposure = payload.setdefault("exposure", "visible")
    _check(exposure in EXPOSURES, line, f"unknown exposure {exposure!r}")
    _check(
        payload.get("status", "active") in STATUSES,
        line,
        f"unknown status {payload.get('status')!r}",
    )
    governed = exposure in GOVERNED
    if not governed:
        _check(isinstance(payload.get("layer"), str), line, "'memory.layer' is missing")
        _check(
            isinstance(payload.get("content"), str) and bool(payload["content"].strip()),
            line,
            "'memory.content' must be a non-empty string",
        )
        _check("\x00" not in payload["content"], line, "'memory.content' holds a NUL (\\u0000)")
    events = obj.get("events") or []
    _check(
        isinstance(events, list) and all(isinstance(e, dict) for e in events),
        line,
        "'events' must be a list",
    )
    for event in events:
        if not isinstance(event["id"], str) or not _CANONICAL.fullmatch(event["id"]):
            event["id"] = str(uuid.UUID(str(event["id"])))  # as the store spells point ids
        _check(event.get("atom_id") == atom_id, line, "an event belongs to another memory")
        _check(
            isinstance(event.get("at"), str) and isinstance(event.get("action"), str),
            line,
            "an event lacks 'at' or 'action'",
        )
    dense, sparse = _vectors(obj.get("vectors"), line, dim)
    payload = {k: v for k, v in payload.items() if k not in _INTERNAL}
    if governed:  # never let governed text in, whatever the file says
        for key in ("content", "content_hash", "procedure", "metadata"):
            payload.pop(key, None)
        dense, sparse = None, None
    else:  # a text that cannot be made (a bad procedure) is this line's error, not the batch's
        vector_text_of(as_memory(payload))  # checked above: a memory record
        _with_valid_time(payload, line)
    return Record(line, payload, events, dense, sparse, None, False, pid, governed)


def _with_valid_time(payload: dict[str, Any], line: int) -> None:
    """A memory of an export from before valid time gets it as a read shows it
    (``records.valid_of``: from when it was said, to the update that ended it); a time in
    the file must be ISO 8601."""
    if "valid_from" not in payload:
        payload.update({k: v for k, v in valid_of(as_memory(payload)).items() if v})
    for key in ("valid_from", "valid_to"):
        _check(
            payload.get(key) is None or said_at(payload[key]) is not None,
            line,
            f"'memory.{key}' is not an ISO 8601 time: {payload.get(key)!r}",
        )


def redact_records(records: list[Record]) -> None:
    """Redact every text field of ``records`` in place, all of them in one pass
    (``redact_many``), and set what each one's vectors are made from (``Record.text``)."""
    slots: list[tuple[Any, Any, int]] = []  # (container, key, record index or -1)
    for n, record in enumerate(records):
        for event in record.events:
            if isinstance(event.get("reason"), str):
                slots.append((event, "reason", -1))
        if record.governed:
            continue
        slots.append((record.payload, "content", n))
        procedure = record.payload.get("procedure")
        if isinstance(procedure, dict):
            slots += [
                (procedure, k, n) for k in ("task", "solution") if isinstance(procedure.get(k), str)
            ]
            keys = procedure["search_keys"] = [str(k) for k in procedure.get("search_keys") or []]
            slots += [(keys, i, -1) for i in range(len(keys))]
    cleaned = redact_many([container[key] for container, key, _ in slots])
    for (container, key, n), red in zip(slots, cleaned, strict=True):
        if red.text != container[key]:
            container[key] = red.text
            if n >= 0:  # exported vectors (made from the secret) are not reused
                records[n].changed = True
    for record in records:
        if not record.governed:
            record.payload["content_hash"] = content_hash(record.payload["content"])
            record.text = vector_text_of(as_memory(record.payload))


def _vectors(raw: Any, line: int, dim: int | None) -> tuple[Vector | None, SparseVector | None]:
    if not raw:
        return None, None
    _check(isinstance(raw, dict), line, "'vectors' must be an object")
    dense = raw.get("dense")
    if dense is not None:
        dense = _unpack(dense)
        _check(
            dim is None or len(dense) == dim,
            line,
            f"the dense vector has {len(dense)} values, not {dim}",
        )
    bm25 = raw.get("bm25")
    sparse = None
    if bm25 is not None:
        indices, values = list(bm25["indices"]), [float(v) for v in bm25["values"]]
        _check(
            len(indices) == len(values) and all(isinstance(i, int) for i in indices),
            line,
            "bad bm25 vector",
        )
        sparse = SparseVector(indices, values)
    return dense, sparse


def vector_text_of(payload: Memory) -> str:
    """The text a stored memory's vectors were made from (as the write path made them):
    a raw turn with its day, a procedure by its problem side, anything else its content."""
    procedure = payload.get("procedure")
    if payload.get("layer") == "procedure" and isinstance(procedure, dict):
        return vector_text(Procedure(**procedure))
    if payload.get("layer") == "raw":
        return dated_text(payload["content"], payload.get("occurred_at"))
    return payload["content"]
