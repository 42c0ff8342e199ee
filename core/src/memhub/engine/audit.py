"""The audit log's points: one step each, or a bundle of many steps (pure, no I/O).

A write logs its steps as they happen, one point each. An import brings the steps of
thousands of memories at once, and a point costs the same to convert, write and index
whatever it holds (~40 us of CPU, bench/README.md), so it writes them in bundles of up
to ``BUNDLE_SIZE``: one point whose ``BUNDLE`` holds the steps (packed into one JSON
string on Qdrant Edge) and whose ``atom_id`` lists their memories, so the same filters
find it. Every reader goes through ``steps``, which unfolds bundles, keeps only the
memories asked for, and drops a step seen twice (a resumed import may have written it
already, alone or in another bundle).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from memhub.store.base import StoredPoint

BUNDLE = "bundle"
BUNDLE_SIZE = 64
"""Steps per bundle: a read of one memory's steps reads and parses its whole bundle (at 256,
0.98 ms against 0.42-0.57 for a step of its own; at 64, as fast), while a bundle's fixed
cost spread over 64 steps is under 1 us each (bench/README.md)."""
_NAMESPACE = uuid.UUID("5f0e4c1a-8d0b-4a8e-9a57-3b1f0c2d6e71")


def bundles(steps: Sequence[dict[str, Any]], tenant: str) -> list[StoredPoint]:
    """``steps`` (each with its ``id``, ``atom_id`` and ``at``) as bundle points of ``tenant``.

    A bundle's id follows from the tenant and the ids of its steps, so writing the same
    steps again (a resumed import) names the same point. Its ``at`` is its newest step's: a filter
    ``at >= t`` finds every bundle holding a step that matches it.
    """
    # by memory id (a ULID: time order, the order an export reads memories in): a bundle
    # then holds neighbours, and an export's page of memories matches few bundles
    steps = sorted(steps, key=lambda s: str(s["atom_id"]))
    out = []
    for start in range(0, len(steps), BUNDLE_SIZE):
        chunk = [
            {k: v for k, v in s.items() if k != "tenant"}
            for s in steps[start : start + BUNDLE_SIZE]
        ]
        # the tenant is part of it: the same steps imported by two tenants are two bundles
        key = tenant + "\n" + ",".join(str(s["id"]) for s in chunk)
        payload = {
            "atom_id": sorted({s["atom_id"] for s in chunk}),
            "kind": sorted({s["kind"] for s in chunk if isinstance(s.get("kind"), str)}),
            "at": max(s["at"] for s in chunk),
            "tenant": tenant,
            BUNDLE: chunk,
        }
        out.append(StoredPoint(str(uuid.uuid5(_NAMESPACE, key)), payload))
    return out


def steps(
    points: Iterable[StoredPoint], atom_ids: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """The steps ``points`` hold, each with its ``id``, once each; with ``atom_ids``, only
    the steps of those memories (a bundle holds the steps of others too)."""
    seen: set[str] = set()
    out = []
    for point in points:
        payload = point.payload
        held = payload.get(BUNDLE)
        if held is None:
            found: list[dict[str, Any]] = [{"id": point.id, **payload}]
        else:
            tenant = payload.get("tenant")
            found = [{**step, "tenant": tenant} for step in held]
        for step in found:
            if step["id"] in seen or (atom_ids is not None and step["atom_id"] not in atom_ids):
                continue
            seen.add(step["id"])
            out.append(step)
    return out


def with_reason(point: StoredPoint, reason: str, about: Collection[str]) -> StoredPoint | None:
    """``point`` with ``reason`` in place of the reason of each of its steps on the memories
    ``about`` or naming one of them (``related``); ``None`` if no step changes."""

    def changed(step: dict[str, Any]) -> bool:
        return step.get("reason") not in (None, reason) and (
            step.get("atom_id") in about or step.get("related") in about
        )

    held = point.payload.get(BUNDLE)
    if held is None:
        if not changed(point.payload):
            return None
        return StoredPoint(point.id, {**point.payload, "reason": reason})
    if not any(changed(step) for step in held):
        return None
    rewritten = [{**step, "reason": reason} if changed(step) else step for step in held]
    return StoredPoint(point.id, {**point.payload, BUNDLE: rewritten})
