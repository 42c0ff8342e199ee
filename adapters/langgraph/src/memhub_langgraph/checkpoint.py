"""``MemHubCheckpointer``: LangGraph thread checkpoints in memhub's Qdrant backend.

Two payload-only collections hold everything, serialised with the saver's
``serde`` (``dumps_typed``, bytes base64-encoded into the payload):

- ``checkpoints``: one point per checkpoint (``kind="checkpoint"``: the checkpoint
  without its channel values, the metadata, the parent id, ``run_id`` and a
  sortable ``seq``) and one per channel value version (``kind="blob"``), shared by
  every checkpoint that still has that version, as in LangGraph's Postgres saver.
- ``checkpoint_writes``: one point per pending write ``(task_id, idx)``.

Point ids are derived from the keys, so a put is idempotent and a get by id is a
direct lookup.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
    writes_sort_key,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from memhub.embed.base import Embedder
from memhub.store.base import Collection, Match, MatchAny, StoredPoint, Where, every
from memhub_langgraph._runner import LoopRunner, resolve_client

_SPACE = uuid.UUID("0e7f7f54-5d0b-4a7e-8d1f-6a3c9b2e4f10")
_PAGE = 1000
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NEVER = Where(must=(Match("kind", "\x00never"),))  # an only_if no stored point matches
_EMPTY = ("empty", b"")


def _pid(*parts: Any) -> str:
    return str(uuid.uuid5(_SPACE, json.dumps(parts)))


def _seq(checkpoint_id: str) -> int:
    """An integer in checkpoint-id order for canonical UUID ids (LangGraph's uuid6), else -1.

    The first 15 hex digits keep the order of the id strings and fit a Qdrant integer index.
    """
    return int(checkpoint_id.replace("-", "")[:15], 16) if _UUID.fullmatch(checkpoint_id) else -1


def _enc(typed: tuple[str, bytes]) -> dict[str, str]:
    return {"t": typed[0], "b": base64.b64encode(typed[1]).decode("ascii")}


def _dec(stored: dict[str, str]) -> tuple[str, bytes]:
    return stored["t"], base64.b64decode(stored["b"])


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
        versions = dict(ancestor["versions"])
        remaining = {ch for ch in remaining if (ch, versions.get(ch)) not in stored}
        parent = ancestor.get("parent_checkpoint_id")
    return kept


def _where(**equal: str) -> Where:
    return Where(must=tuple(Match(k, v) for k, v in equal.items()))


def _conf(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> RunnableConfig:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": checkpoint_ns,
            "checkpoint_id": checkpoint_id,
        }
    }


class _Records:
    """``client.records`` (memhub's public record API) under the store port's method names."""

    def __init__(self, records: Any) -> None:
        self.retrieve = records.get
        self.scroll = records.scroll
        self.count = records.count
        self.upsert = records.put
        self.delete = records.delete


class MemHubCheckpointer(BaseCheckpointSaver[str]):
    """A LangGraph checkpointer on memhub's store: threads survive restarts and scale with Qdrant.

    Example:
        >>> checkpointer = MemHubCheckpointer(MemoryClient(storage_dir="./.memhub_data"))
        >>> graph = builder.compile(checkpointer=checkpointer)
        >>> graph.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient`` (or a remote one) whose store to
            use; shared with ``MemHubStore`` is fine. Everything goes through its public
            record API (``client.records``), so it works through the local hub too.
        storage_dir: instead of ``client``: open a client on this folder (closed with the saver).
        embed: the embedder of that client (the store pins one; default memhub's).
        serde: LangGraph serializer (default ``JsonPlusSerializer``).

    Every method has a sync and an async form; both run on one private loop
    thread, so the saver can serve ``invoke`` and ``ainvoke`` at once.
    """

    def __init__(
        self,
        client: Any = None,
        *,
        storage_dir: str | Path | None = None,
        embed: Embedder | None = None,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.client, self._owns_client = resolve_client(
            client, storage_dir, embed, "MemHubCheckpointer"
        )
        self._runner = LoopRunner(
            "memhub-langgraph-checkpointer", "MemHubCheckpointer", self.client
        )
        try:
            self._runner.run(self.client.open(), "open")
        except BaseException:
            self._runner.close()
            raise

    @property
    def _store(self) -> _Records:
        return _Records(self.client.records)

    def close(self) -> None:
        if self._runner.closed:
            return
        if self._owns_client:
            self._runner.run(self.client.aclose(), "close")
        self._runner.close()

    def __enter__(self) -> MemHubCheckpointer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MemHubCheckpointer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.to_thread(self.close)

    # -- sync face: one line each -------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self._runner.run(self._get_tuple(config), "get_tuple")

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        return iter(self._runner.run(self._list(config, filter, before, limit), "list"))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self._runner.run(self._put(config, checkpoint, metadata, new_versions), "put")

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        return self._runner.run(self._put_writes(config, writes, task_id, task_path), "put_writes")

    def delete_thread(self, thread_id: str) -> None:
        return self._runner.run(self._delete_thread(thread_id), "delete_thread")

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        return self._runner.run(self._delete_for_runs(run_ids), "delete_for_runs")

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        return self._runner.run(
            self._copy_thread(source_thread_id, target_thread_id), "copy_thread"
        )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        return self._runner.run(self._prune(thread_ids, strategy), "prune")

    # -- async face -----------------------------------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await self._runner.arun(self._get_tuple(config))

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for tup in await self._runner.arun(self._list(config, filter, before, limit)):
            yield tup

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await self._runner.arun(self._put(config, checkpoint, metadata, new_versions))

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        return await self._runner.arun(self._put_writes(config, writes, task_id, task_path))

    async def adelete_thread(self, thread_id: str) -> None:
        return await self._runner.arun(self._delete_thread(thread_id))

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        return await self._runner.arun(self._delete_for_runs(run_ids))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        return await self._runner.arun(self._copy_thread(source_thread_id, target_thread_id))

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        return await self._runner.arun(self._prune(thread_ids, strategy))

    def get_next_version(self, current: str | None, channel: None) -> str:
        """``"<32-digit counter>.<random>"``, as LangGraph's own savers make them."""
        counter = int(str(current).split(".")[0]) if current is not None else 0
        return f"{counter + 1:032}.{random.random():016}"

    # -- the async core -------------------------------------------------------------------

    async def _put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        conf = config["configurable"]
        thread_id, ns, checkpoint_id = (
            str(conf["thread_id"]),
            conf.get("checkpoint_ns", ""),
            checkpoint["id"],
        )
        stripped = dict(checkpoint)
        values = stripped.pop("channel_values", {})
        points = []
        for channel, version in new_versions.items():
            typed = self.serde.dumps_typed(values[channel]) if channel in values else _EMPTY
            points.append(
                StoredPoint(
                    _pid("blob", thread_id, ns, channel, str(version)),
                    {
                        "kind": "blob",
                        "thread_id": thread_id,
                        "checkpoint_ns": ns,
                        "channel": channel,
                        "version": str(version),
                        "value": _enc(typed),
                    },
                )
            )
        meta = get_checkpoint_metadata(config, metadata)
        run_id = meta.get("run_id")
        points.append(
            StoredPoint(
                _pid("checkpoint", thread_id, ns, checkpoint_id),
                {
                    "kind": "checkpoint",
                    "thread_id": thread_id,
                    "checkpoint_ns": ns,
                    "checkpoint_id": checkpoint_id,
                    "parent_checkpoint_id": conf.get("checkpoint_id"),
                    "seq": _seq(checkpoint_id),
                    "run_id": str(run_id) if run_id is not None else None,
                    "versions": [[ch, str(v)] for ch, v in checkpoint["channel_versions"].items()],
                    "checkpoint": _enc(self.serde.dumps_typed(stripped)),
                    "metadata": _enc(self.serde.dumps_typed(meta)),
                },
            )
        )
        await self._store.upsert("checkpoints", points)
        return _conf(thread_id, ns, checkpoint_id)

    async def _put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str,
    ) -> None:
        conf = config["configurable"]
        thread_id, ns, checkpoint_id = (
            str(conf["thread_id"]),
            conf.get("checkpoint_ns", ""),
            conf["checkpoint_id"],
        )
        regular, special = [], []
        for i, (channel, value) in enumerate(writes):
            idx = WRITES_IDX_MAP.get(channel, i)
            point = StoredPoint(
                _pid("write", thread_id, ns, checkpoint_id, task_id, idx),
                {
                    "thread_id": thread_id,
                    "checkpoint_ns": ns,
                    "checkpoint_id": checkpoint_id,
                    "task_id": task_id,
                    "task_path": task_path,
                    "idx": idx,
                    "channel": channel,
                    "value": _enc(self.serde.dumps_typed(value)),
                },
            )
            (regular if idx >= 0 else special).append(point)
        # A retried task must not duplicate or overwrite its regular writes; errors and
        # interrupts (negative idx) are replaced by the latest.
        await self._store.upsert("checkpoint_writes", regular, only_if=_NEVER)
        await self._store.upsert("checkpoint_writes", special)

    async def _get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        conf = config["configurable"]
        thread_id, ns = str(conf["thread_id"]), conf.get("checkpoint_ns", "")
        if checkpoint_id := get_checkpoint_id(config):
            found = await self._store.retrieve(
                "checkpoints", [_pid("checkpoint", thread_id, ns, checkpoint_id)]
            )
            payload = found[0].payload if found else None
        else:
            payload = await self._latest(thread_id, ns)
        if payload is None:
            return None
        return (await self._tuples([payload]))[0]

    async def _latest(self, thread_id: str, ns: str) -> dict | None:
        where = _where(kind="checkpoint", thread_id=thread_id, checkpoint_ns=ns)
        top, _ = await self._store.scroll(
            "checkpoints", where, limit=8, order_by="seq", descending=True
        )
        if not top:
            return None
        head = top[0].payload["seq"]
        tied = len(top) == 8 and top[-1].payload["seq"] == head
        if head < 0 or tied or await self._store.count("checkpoints", where.and_(Match("seq", -1))):
            candidates = await self._scan("checkpoints", where)
        else:
            candidates = [p.payload for p in top if p.payload["seq"] == head]
        return max(candidates, key=lambda p: p["checkpoint_id"])

    async def _list(
        self,
        config: RunnableConfig | None,
        flt: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> list[CheckpointTuple]:
        must: list = [Match("kind", "checkpoint")]
        if config:
            conf = config["configurable"]
            must.append(Match("thread_id", str(conf["thread_id"])))
            if conf.get("checkpoint_ns") is not None:
                must.append(Match("checkpoint_ns", conf["checkpoint_ns"]))
            if checkpoint_id := get_checkpoint_id(config):
                must.append(Match("checkpoint_id", checkpoint_id))
        before_id = get_checkpoint_id(before) if before else None
        selected = []
        for payload in sorted(
            await self._scan("checkpoints", Where(must=tuple(must))),
            key=lambda p: p["checkpoint_id"],
            reverse=True,
        ):
            if limit is not None and len(selected) >= limit:
                break
            if before_id and payload["checkpoint_id"] >= before_id:
                continue
            if flt:
                metadata = self.serde.loads_typed(_dec(payload["metadata"]))
                if not all(metadata.get(k) == v for k, v in flt.items()):
                    continue
            selected.append(payload)
        return await self._tuples(selected)

    async def _tuples(self, payloads: list[dict]) -> list[CheckpointTuple]:
        """Checkpoint payloads -> tuples, with two round trips for all blobs and writes."""
        if not payloads:
            return []
        blob_ids = {
            _pid("blob", p["thread_id"], p["checkpoint_ns"], ch, v)
            for p in payloads
            for ch, v in p["versions"]
        }
        blobs = {b.id: b.payload for b in await self._store.retrieve("checkpoints", list(blob_ids))}
        writes: dict[tuple[str, str, str], list[dict]] = {}
        for thread_id in {p["thread_id"] for p in payloads}:
            ids = tuple({p["checkpoint_id"] for p in payloads if p["thread_id"] == thread_id})
            where = Where(must=(Match("thread_id", thread_id), MatchAny("checkpoint_id", ids)))
            for w in await self._scan("checkpoint_writes", where):
                writes.setdefault(
                    (w["thread_id"], w["checkpoint_ns"], w["checkpoint_id"]), []
                ).append(w)
        out = []
        for p in payloads:
            thread_id, ns, checkpoint_id = p["thread_id"], p["checkpoint_ns"], p["checkpoint_id"]
            values = {}
            for ch, v in p["versions"]:
                blob = blobs.get(_pid("blob", thread_id, ns, ch, v))
                if blob is not None and blob["value"]["t"] != "empty":
                    values[ch] = self.serde.loads_typed(_dec(blob["value"]))
            pending = sorted(
                writes.get((thread_id, ns, checkpoint_id), []),
                key=lambda w: writes_sort_key(w["task_path"], w["task_id"], w["idx"]),
            )
            parent = p.get("parent_checkpoint_id")
            out.append(
                CheckpointTuple(
                    config=_conf(thread_id, ns, checkpoint_id),
                    checkpoint={
                        **self.serde.loads_typed(_dec(p["checkpoint"])),
                        "channel_values": values,
                    },
                    metadata=self.serde.loads_typed(_dec(p["metadata"])),
                    parent_config=_conf(thread_id, ns, parent) if parent else None,
                    pending_writes=[
                        (w["task_id"], w["channel"], self.serde.loads_typed(_dec(w["value"])))
                        for w in pending
                    ],
                )
            )
        return out

    # -- maintenance ----------------------------------------------------------------------

    async def _scan(self, collection: Collection, where: Where) -> list[dict]:
        return [p.payload for p in await every(self._store, collection, where, size=_PAGE)]

    async def _delete_where(self, collection: Collection, where: Where) -> None:
        while True:
            page, _ = await self._store.scroll(collection, where, limit=_PAGE)
            if not page:
                return
            await self._store.delete(collection, [p.id for p in page])

    async def _delete_checkpoints(self, doomed: list[dict]) -> None:
        """Delete these checkpoints and their writes, then the blobs nothing references any more."""
        for p in doomed:
            await self._delete_where(
                "checkpoint_writes",
                _where(
                    thread_id=p["thread_id"],
                    checkpoint_ns=p["checkpoint_ns"],
                    checkpoint_id=p["checkpoint_id"],
                ),
            )
        await self._store.delete(
            "checkpoints",
            [
                _pid("checkpoint", p["thread_id"], p["checkpoint_ns"], p["checkpoint_id"])
                for p in doomed
            ],
        )
        for thread_id, ns in {(p["thread_id"], p["checkpoint_ns"]) for p in doomed}:
            live = await self._scan(
                "checkpoints", _where(kind="checkpoint", thread_id=thread_id, checkpoint_ns=ns)
            )
            used = {_pid("blob", thread_id, ns, ch, v) for p in live for ch, v in p["versions"]}
            blobs = await self._scan(
                "checkpoints", _where(kind="blob", thread_id=thread_id, checkpoint_ns=ns)
            )
            unused = {_pid("blob", thread_id, ns, b["channel"], b["version"]) for b in blobs} - used
            await self._store.delete("checkpoints", list(unused))

    async def _delete_thread(self, thread_id: str) -> None:
        await self._delete_where("checkpoints", _where(thread_id=str(thread_id)))
        await self._delete_where("checkpoint_writes", _where(thread_id=str(thread_id)))

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
        copies = []
        for p in await self._scan("checkpoints", _where(thread_id=source)):
            key = (p["channel"], p["version"]) if p["kind"] == "blob" else (p["checkpoint_id"],)
            copies.append(
                StoredPoint(
                    _pid(p["kind"], target, p["checkpoint_ns"], *key), {**p, "thread_id": target}
                )
            )
        await self._upsert_pages("checkpoints", copies)
        writes = [
            StoredPoint(
                _pid(
                    "write", target, w["checkpoint_ns"], w["checkpoint_id"], w["task_id"], w["idx"]
                ),
                {**w, "thread_id": target},
            )
            for w in await self._scan("checkpoint_writes", _where(thread_id=source))
        ]
        await self._upsert_pages("checkpoint_writes", writes)

    async def _upsert_pages(self, collection: Collection, points: list[StoredPoint]) -> None:
        for i in range(0, len(points), _PAGE):
            await self._store.upsert(collection, points[i : i + _PAGE])

    async def _prune(self, thread_ids: Sequence[str], strategy: str) -> None:
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'")
        for thread_id in map(str, thread_ids):
            if strategy == "delete":
                await self._delete_thread(thread_id)
                continue
            checkpoints = await self._scan(
                "checkpoints", _where(kind="checkpoint", thread_id=thread_id)
            )
            keep: set[tuple[str, str]] = set()
            for ns in {p["checkpoint_ns"] for p in checkpoints}:
                in_ns = {p["checkpoint_id"]: p for p in checkpoints if p["checkpoint_ns"] == ns}
                latest = in_ns[max(in_ns)]
                metadata = self.serde.loads_typed(_dec(latest["metadata"]))
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
            "checkpoints", _where(kind="blob", thread_id=thread_id, checkpoint_ns=ns)
        )
        return {(b["channel"], b["version"]) for b in blobs if b["value"]["t"] != "empty"}
