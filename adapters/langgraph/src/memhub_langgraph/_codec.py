"""How ``MemHubCheckpointer`` lays checkpoints out in its two collections: pure functions.

Point ids are derived from the keys (``pid``), so a put is idempotent and a get by id
is a direct lookup. Values are the saver's ``serde.dumps_typed`` output, its bytes
base64-encoded into the payload. Nothing here does I/O: the checkpointer reads and
writes, and builds its tuples here from the payloads it read or (``_latest``) kept.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import Checkpoint, CheckpointTuple, writes_sort_key
from langgraph.checkpoint.serde.base import SerializerProtocol

from memhub.store.base import Match, Where

_SPACE = uuid.UUID("0e7f7f54-5d0b-4a7e-8d1f-6a3c9b2e4f10")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
EMPTY = ("empty", b"")
_SCALARS = (str, int, float, bool, type(None))
_SHORT = 1024  # characters of a string held in its checkpoint; longer: a blob
_FEW = 8  # items of a list or dict of scalars held in its checkpoint


@functools.lru_cache(maxsize=16384, typed=True)
def pid(*parts: Any) -> str:
    """The point id of ``parts`` (hashable: strings and ints). Remembered: the ids of a
    thread's channel values come back at every step, and a uuid5 costs ~10 us."""
    return str(uuid.uuid5(_SPACE, json.dumps(parts)))


def blob_ids(payload: Mapping[str, Any]) -> set[str]:
    """The point ids of the channel values a checkpoint payload refers to and does not hold."""
    thread_id, ns = payload["thread_id"], payload["checkpoint_ns"]
    inline = payload.get("inline") or {}
    return {pid("blob", thread_id, ns, ch, v) for ch, v in payload["versions"] if ch not in inline}


def inline_values(
    serde: SerializerProtocol, values: Mapping[str, Any], versions: Mapping[str, Any]
) -> dict[str, dict[str, str] | None]:
    """The channel values a checkpoint holds itself, as LangGraph's Postgres saver holds its
    scalars: short scalars and small lists or dicts of them (a graph's input such as
    ``{"count": 0}``), and ``None`` for a channel with a version but no value. Each would
    otherwise be a point of its own, and a point costs more to write than a field
    (``_collections.CHECKPOINTS``). What may grow (message lists, objects) keeps a blob
    per version, shared by every checkpoint that still has it. Decided from the value's
    shape, never its serialised size: a channel left unchanged is held again by the next
    checkpoint, so the test must be cheap.
    """
    out: dict[str, dict[str, str] | None] = {}
    for channel in versions:
        if channel not in values:
            out[channel] = None
        elif _small(values[channel]):
            out[channel] = enc(serde.dumps_typed(values[channel]))
    return out


def _small(value: Any) -> bool:
    return _leaves(value, depth=2) <= _FEW


def _leaves(value: Any, depth: int) -> int:
    """The scalars in ``value`` (lists and dicts of scalars, ``depth`` levels deep); more than
    ``_FEW`` for anything else."""
    if _scalar(value):
        return 1
    if depth == 0 or type(value) not in (dict, list, tuple) or len(value) > _FEW:
        return _FEW + 1
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return _FEW + 1
        value = value.values()
    return sum(_leaves(v, depth - 1) for v in value)


def _scalar(value: Any) -> bool:
    return type(value) in _SCALARS and not (isinstance(value, str) and len(value) > _SHORT)


def seq(checkpoint_id: str) -> int:
    """An integer in checkpoint-id order for canonical UUID ids (LangGraph's uuid6), else -1.

    The first 15 hex digits keep the order of the id strings and fit a Qdrant integer index.
    """
    return int(checkpoint_id.replace("-", "")[:15], 16) if _UUID.fullmatch(checkpoint_id) else -1


def enc(typed: tuple[str, bytes]) -> dict[str, str]:
    return {"t": typed[0], "b": base64.b64encode(typed[1]).decode("ascii")}


def dec(stored: Mapping[str, str]) -> tuple[str, bytes]:
    return stored["t"], base64.b64decode(stored["b"])


def where(**equal: str) -> Where:
    return Where(must=tuple(Match(k, v) for k, v in equal.items()))


def conf(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> RunnableConfig:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": checkpoint_ns,
            "checkpoint_id": checkpoint_id,
        }
    }


def build_tuple(
    serde: SerializerProtocol,
    payload: Mapping[str, Any],
    blobs: Mapping[str, Mapping[str, Any]],
    writes: Iterable[Mapping[str, Any]],
) -> CheckpointTuple:
    """The ``CheckpointTuple`` of a stored checkpoint payload, given the blob payloads by point
    id (at least those it refers to) and the payloads of its pending writes. Every value is
    deserialised afresh, so the caller may change what it gets.
    """
    thread_id, ns, checkpoint_id = (
        payload["thread_id"],
        payload["checkpoint_ns"],
        payload["checkpoint_id"],
    )
    inline = payload.get("inline") or {}
    values = {ch: serde.loads_typed(dec(v)) for ch, v in inline.items() if v is not None}
    for ch, v in payload["versions"]:
        if ch in inline:
            continue
        blob = blobs.get(pid("blob", thread_id, ns, ch, v))
        if blob is not None and blob["value"]["t"] != "empty":
            values[ch] = serde.loads_typed(dec(blob["value"]))
    pending = sorted(writes, key=lambda w: writes_sort_key(w["task_path"], w["task_id"], w["idx"]))
    parent = payload.get("parent_checkpoint_id")
    checkpoint: Checkpoint = serde.loads_typed(dec(payload["checkpoint"]))  # a fresh dict
    checkpoint["channel_values"] = values
    return CheckpointTuple(
        config=conf(thread_id, ns, checkpoint_id),
        checkpoint=checkpoint,
        metadata=serde.loads_typed(dec(payload["metadata"])),
        parent_config=conf(thread_id, ns, parent) if parent else None,
        pending_writes=[
            (w["task_id"], w["channel"], serde.loads_typed(dec(w["value"]))) for w in pending
        ],
    )
