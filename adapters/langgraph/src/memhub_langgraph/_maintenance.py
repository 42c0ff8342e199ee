"""``MemHubCheckpointer``'s maintenance calls: delete a thread or the checkpoints of runs,
copy a thread, prune. Rare next to ``put`` and ``get_tuple``, so they read and write a
page at a time and make every checkpoint kept in memory a miss (``_latest``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhub.store.base import Collection, Match, MatchAny, StoredPoint, Where, every
from memhub_langgraph import _codec as codec

PAGE = 1000


def delta_ancestors(
    latest: dict, metadata: dict, by_id: dict[str, dict], stored: set[tuple[str, str]]
) -> list[str]:
    """Ancestors of ``latest`` its ``DeltaChannel``s still need (pruning must keep them).

    A delta channel is rebuilt from the nearest ancestor holding a stored value
    (its seed) plus the writes of every checkpoint on the way, so walk the parent
    chain until each channel named in ``counters_since_delta_snapshot`` meets one.
    """
    remaining = set((metadata or {}).get("counters_since_delta_snapshot") or {})
    kept: list[str] = []
    parent = latest.get("parent_checkpoint_id")
    while remaining and parent in by_id:
        ancestor = by_id[parent]
        kept.append(parent)
        versions, inline = dict(ancestor["versions"]), ancestor.get("inline") or {}
        remaining = {
            ch
            for ch in remaining
            if (ch, versions.get(ch)) not in stored and inline.get(ch) is None
        }
        parent = ancestor.get("parent_checkpoint_id")
    return kept


class Maintenance:
    """The maintenance half of ``MemHubCheckpointer`` (a mixin on its store and cache)."""

    _store: Any
    _latest: Any
    serde: Any

    async def _scan(self, collection: Collection, where: Where) -> list[dict]:
        return [p.payload for p in await every(self._store, collection, where, size=PAGE)]

    async def _delete_where(self, collection: Collection, where: Where) -> None:
        while True:
            page, _ = await self._store.scroll(collection, where, limit=PAGE)
            if not page:
                return
            await self._store.delete(collection, [p.id for p in page])

    async def _delete_checkpoints(self, doomed: list[dict]) -> None:
        """Delete these checkpoints and their writes, then the blobs nothing references any more."""
        for p in doomed:
            await self._delete_where(
                "checkpoint_writes",
                codec.where(
                    thread_id=p["thread_id"],
                    checkpoint_ns=p["checkpoint_ns"],
                    checkpoint_id=p["checkpoint_id"],
                ),
            )
        await self._store.delete(
            "checkpoints",
            [
                codec.pid("checkpoint", p["thread_id"], p["checkpoint_ns"], p["checkpoint_id"])
                for p in doomed
            ],
        )
        for thread_id, ns in {(p["thread_id"], p["checkpoint_ns"]) for p in doomed}:
            live = await self._scan(
                "checkpoints", codec.where(kind="checkpoint", thread_id=thread_id, checkpoint_ns=ns)
            )
            used = set().union(*map(codec.blob_ids, live))
            blobs = await self._scan(
                "checkpoints", codec.where(kind="blob", thread_id=thread_id, checkpoint_ns=ns)
            )
            unused = {
                codec.pid("blob", thread_id, ns, b["channel"], b["version"]) for b in blobs
            } - used
            await self._store.delete("checkpoints", list(unused))

    async def _delete_thread(self, thread_id: str) -> None:
        self._latest.forget_thread(str(thread_id))
        try:
            await self._delete_where("checkpoints", codec.where(thread_id=str(thread_id)))
            await self._delete_where("checkpoint_writes", codec.where(thread_id=str(thread_id)))
        finally:
            self._latest.forget_thread(str(thread_id))

    async def _delete_for_runs(self, run_ids: Sequence[str]) -> None:
        if not run_ids:
            return
        where = Where(
            must=(Match("kind", "checkpoint"), MatchAny("run_id", tuple(str(r) for r in run_ids)))
        )
        doomed = await self._scan("checkpoints", where)
        if doomed:
            await self._delete_checkpoints(doomed)

    async def _copy_thread(self, source: str, target: str) -> None:
        source, target = str(source), str(target)
        self._latest.forget_thread(target)  # writes kept aside for it may be overwritten
        copies = []
        for p in await self._scan("checkpoints", codec.where(thread_id=source)):
            key = (p["channel"], p["version"]) if p["kind"] == "blob" else (p["checkpoint_id"],)
            copies.append(
                StoredPoint(
                    codec.pid(p["kind"], target, p["checkpoint_ns"], *key),
                    {**p, "thread_id": target},
                )
            )
        await self._upsert_pages("checkpoints", copies)
        writes = [
            StoredPoint(
                codec.pid(
                    "write", target, w["checkpoint_ns"], w["checkpoint_id"], w["task_id"], w["idx"]
                ),
                {**w, "thread_id": target},
            )
            for w in await self._scan("checkpoint_writes", codec.where(thread_id=source))
        ]
        await self._upsert_pages("checkpoint_writes", writes)

    async def _upsert_pages(self, collection: Collection, points: list[StoredPoint]) -> None:
        for i in range(0, len(points), PAGE):
            await self._store.upsert(collection, points[i : i + PAGE])

    async def _prune(self, thread_ids: Sequence[str], strategy: str) -> None:
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'")
        for thread_id in map(str, thread_ids):
            if strategy == "delete":
                await self._delete_thread(thread_id)
                continue
            checkpoints = await self._scan(
                "checkpoints", codec.where(kind="checkpoint", thread_id=thread_id)
            )
            keep: set[tuple[str, str]] = set()
            for ns in {p["checkpoint_ns"] for p in checkpoints}:
                in_ns = {p["checkpoint_id"]: p for p in checkpoints if p["checkpoint_ns"] == ns}
                latest = in_ns[max(in_ns)]
                metadata = self.serde.loads_typed(codec.dec(latest["metadata"]))
                blobs = await self._blob_values(thread_id, ns)
                keep.update(
                    (ns, cid)
                    for cid in [
                        latest["checkpoint_id"],
                        *delta_ancestors(latest, metadata, in_ns, blobs),
                    ]
                )
            doomed = [
                p for p in checkpoints if (p["checkpoint_ns"], p["checkpoint_id"]) not in keep
            ]
            if doomed:
                await self._delete_checkpoints(doomed)

    async def _blob_values(self, thread_id: str, ns: str) -> set[tuple[str, str]]:
        """``(channel, version)`` of the non-empty stored values of one thread namespace."""
        blobs = await self._scan(
            "checkpoints", codec.where(kind="blob", thread_id=thread_id, checkpoint_ns=ns)
        )
        return {(b["channel"], b["version"]) for b in blobs if b["value"]["t"] != "empty"}
