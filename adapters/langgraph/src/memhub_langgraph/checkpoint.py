"""``MemHubCheckpointer``: LangGraph thread checkpoints in memhub's Qdrant backend.

Two payload-only collections hold everything, serialised with the saver's
``serde`` (``dumps_typed``, bytes base64-encoded into the payload):

- ``checkpoints``: one point per checkpoint (``kind="checkpoint"``: the checkpoint
  without its channel values, the metadata, the parent id, ``run_id`` and a
  sortable ``seq``) and one per channel value version (``kind="blob"``), shared by
  every checkpoint that still has that version, as in LangGraph's Postgres saver.
- ``checkpoint_writes``: one point per pending write ``(task_id, idx)``.

Each checkpoint also names the user its run was for (``user_id``, and ``app_id``), read
as the memory nodes read them: ``client.forget_user`` deletes that user's threads whole.

Point ids are derived from the keys, so a put is idempotent and a get by id is a
direct lookup (``_codec``). The latest checkpoint of each thread is also kept in
memory while no one else writes the store (``_latest``), so a step starts without a
read.
"""

from __future__ import annotations

import asyncio
import builtins
import enum
import random
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

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
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from memhub.bridge import Client
from memhub.embed.base import Embedder
from memhub.records import Records
from memhub.store.base import Match, MatchAny, StoredPoint, Where, every
from memhub_langgraph import _codec as codec
from memhub_langgraph._latest import LatestCache
from memhub_langgraph._maintenance import PAGE, Maintenance
from memhub_langgraph._runner import LoopRunner, resolve_client
from memhub_langgraph.nodes import lookup

_NEVER = Where(must=(Match("kind", "\x00never"),))  # an only_if no stored point matches


class _Kept(enum.Enum):
    """What ``_kept`` returns when memory cannot tell (a one-member enum, so it types)."""

    NOT = enum.auto()


_NOT_KEPT: Final = _Kept.NOT


def _key(config: RunnableConfig) -> tuple[str, str]:
    conf = config["configurable"]
    return str(conf["thread_id"]), conf.get("checkpoint_ns", "")


@dataclass(frozen=True)
class _Upsert:
    """One write of the saver: ``points`` into ``collection`` (``only_if`` as
    ``MemoryStore.upsert``), and ``done``, what to tell the cache once they are stored."""

    collection: str
    points: list[StoredPoint]
    only_if: Where | None
    done: Callable[[], None]


class _Records:
    """``client.records`` (memhub's public record API) under the store port's method names."""

    def __init__(self, records: Any) -> None:
        self.retrieve = records.get
        self.scroll = records.scroll
        self.count = records.count
        self.upsert = records.put
        self.delete = records.delete


class MemHubCheckpointer(Maintenance, BaseCheckpointSaver[str]):
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
        user_id_key / app_id_key: where a run's user and app ids are, as for the memory
            nodes: the run's context, ``config["configurable"]``, the state, the config's
            metadata. Each checkpoint records them (the app: the client's when the run names
            none), so ``client.forget_user(user_id)`` deletes the user's threads.

    Every method has a sync and an async form; both run on one loop (the engine's,
    for a local client), so the saver can serve ``invoke`` and ``ainvoke`` at once.
    On a local Qdrant Edge store the checkpoint writes skip that hop: they run on the
    caller's thread (``Records.put_now``; an async caller only while the store is idle),
    and the latest checkpoint of each thread is also kept in memory while only this
    saver writes checkpoints (``memhub_langgraph._latest``).
    """

    def __init__(
        self,
        client: Client | None = None,
        *,
        storage_dir: str | Path | None = None,
        embed: Embedder | None = None,
        serde: SerializerProtocol | None = None,
        user_id_key: str = "user_id",
        app_id_key: str = "app_id",
    ) -> None:
        super().__init__(serde=serde)
        self.client, self._owns_client = resolve_client(
            client, storage_dir, embed, "MemHubCheckpointer"
        )
        self._user_id_key, self._app_id_key = user_id_key, app_id_key
        self._runner = LoopRunner(
            "memhub-langgraph-checkpointer", "MemHubCheckpointer", self.client
        )
        try:
            self._runner.run(self.client.open(), "open")
        except BaseException:
            self._runner.close()
            raise
        self._latest = LatestCache(self.client.records)

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
        self._runner.check("get_tuple")
        if (kept := self._kept(config)) is not _NOT_KEPT:
            return kept
        if self._none_now(config, wait=True):
            return None
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
        self._runner.check("put")
        upsert, stored = self._checkpoint_upsert(config, checkpoint, metadata, new_versions)
        self._write_now(upsert, "put")
        return stored

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self._runner.check("put_writes")
        for upsert in self._write_upserts(config, writes, task_id, task_path):
            self._write_now(upsert, "put_writes")

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
        if not self._runner.closed:
            if (kept := self._kept(config)) is not _NOT_KEPT:
                return kept
            if self._none_now(config, wait=False):
                return None
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
        upsert, stored = self._checkpoint_upsert(config, checkpoint, metadata, new_versions)
        await self._awrite(upsert)
        return stored

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        for upsert in self._write_upserts(config, writes, task_id, task_path):
            await self._awrite(upsert)

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

    def _kept(self, config: RunnableConfig) -> CheckpointTuple | None | Literal[_Kept.NOT]:
        """The latest checkpoint from memory (``None``: the thread has none) or ``_NOT_KEPT``;
        on any thread, without a call."""
        if get_checkpoint_id(config):
            return _NOT_KEPT
        entry = self._latest.get(_key(config))
        if entry is None:
            return _NOT_KEPT
        if entry.checkpoint is None:
            return None
        return codec.build_tuple(self.serde, entry.checkpoint, entry.blobs, entry.writes.values())

    def _none_now(self, config: RunnableConfig, *, wait: bool) -> bool:
        """Whether the thread namespace of ``config`` has no checkpoint yet, read on the
        caller's thread where this process holds the store (``Records.scroll_now``): the
        first step of a new thread makes one short read here instead of two through the
        engine's loop. ``False`` where that cannot be known so (then the loop reads)."""
        if get_checkpoint_id(config):
            return False
        thread_id, ns = key = _key(config)
        where = codec.where(kind="checkpoint", thread_id=thread_id, checkpoint_ns=ns)
        held = _held(self.client.records)
        if held is None:
            return False
        return self._latest.none_now(
            key, lambda: held.scroll_now("checkpoints", where, limit=1, wait=wait)
        )

    def _write_now(self, upsert: _Upsert, method: str) -> None:
        """Make ``upsert`` from a sync caller: on this thread where this process holds the
        store (no hand-off to the engine's loop and back, two thread wake-ups each way per
        write, 5 writes per graph step), else through the loop."""
        if not self._put_now(upsert, wait=True):
            self._runner.run(self._write(upsert), method)

    async def _awrite(self, upsert: _Upsert) -> None:
        """The same from an async caller: on its own loop while the store's worker is idle
        (one short binding call, as the engine's loop would make it), never waiting for it
        there; else through the engine's loop."""
        self._runner.check_open()
        if not self._put_now(upsert, wait=False):
            await self._runner.arun(self._write(upsert))

    def _put_now(self, upsert: _Upsert, *, wait: bool) -> bool:
        held = _held(self.client.records)
        if held is None:
            return False
        return held.put_now(
            upsert.collection,
            upsert.points,
            only_if=upsert.only_if,
            counted=upsert.done,
            wait=wait,
        )

    async def _write(self, upsert: _Upsert) -> None:
        await self._store.upsert(upsert.collection, upsert.points, only_if=upsert.only_if)
        upsert.done()

    def _checkpoint_upsert(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> tuple[_Upsert, RunnableConfig]:
        """The upsert that stores a checkpoint, and the config that names it."""
        conf = config["configurable"]
        thread_id, ns, checkpoint_id = (
            str(conf["thread_id"]),
            conf.get("checkpoint_ns", ""),
            checkpoint["id"],
        )
        stripped: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = stripped.pop("channel_values", {})
        inline = codec.inline_values(self.serde, values, checkpoint["channel_versions"])
        points: list[StoredPoint] = []
        for channel, version in new_versions.items():
            if channel in inline:
                continue
            typed = self.serde.dumps_typed(values[channel]) if channel in values else codec.EMPTY
            points.append(
                StoredPoint(
                    codec.pid("blob", thread_id, ns, channel, str(version)),
                    {
                        "kind": "blob",
                        "thread_id": thread_id,
                        "checkpoint_ns": ns,
                        "channel": channel,
                        "version": str(version),
                        "value": codec.enc(typed),
                    },
                )
            )
        meta = get_checkpoint_metadata(config, metadata)
        run_id = meta.get("run_id")
        payload: dict[str, Any] = {
            "kind": "checkpoint",
            "thread_id": thread_id,
            "checkpoint_ns": ns,
            "checkpoint_id": checkpoint_id,
            "parent_checkpoint_id": conf.get("checkpoint_id"),
            "seq": codec.seq(checkpoint_id),
            "run_id": str(run_id) if run_id is not None else None,
            "versions": [[ch, str(v)] for ch, v in checkpoint["channel_versions"].items()],
            "checkpoint": codec.enc(self.serde.dumps_typed(stripped)),
            "metadata": codec.enc(self.serde.dumps_typed(meta)),
            "inline": inline,
            **self._owner(config, meta, values),
        }
        blobs = {p.id: p.payload for p in points}
        points.append(StoredPoint(codec.pid("checkpoint", thread_id, ns, checkpoint_id), payload))

        def done() -> None:
            self._latest.put_done((thread_id, ns), payload, blobs)

        return _Upsert("checkpoints", points, None, done), codec.conf(thread_id, ns, checkpoint_id)

    def _owner(
        self, config: RunnableConfig, meta: CheckpointMetadata, values: dict[str, Any]
    ) -> dict[str, str]:
        """The user (and app) the run of a checkpoint is for: what ties its thread to the user
        for ``forget_user``. The keys of the run's ``config["metadata"]`` are in ``meta``."""
        user_id = lookup(values, config, self._user_id_key) or meta.get(self._user_id_key)
        if not user_id:
            return {}
        app_id = lookup(values, config, self._app_id_key) or meta.get(self._app_id_key)
        app_id = app_id or self.client.scope.app_id
        return {"user_id": str(user_id)} | ({"app_id": str(app_id)} if app_id else {})

    def _write_upserts(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str,
    ) -> builtins.list[_Upsert]:
        """Pending writes as the upserts that store them, in order."""
        conf = config["configurable"]
        thread_id, ns, checkpoint_id = (
            str(conf["thread_id"]),
            conf.get("checkpoint_ns", ""),
            conf["checkpoint_id"],
        )
        regular: list[StoredPoint] = []
        special: list[StoredPoint] = []
        for i, (channel, value) in enumerate(writes):
            idx = WRITES_IDX_MAP.get(channel, i)
            point = StoredPoint(
                codec.pid("write", thread_id, ns, checkpoint_id, task_id, idx),
                {
                    "thread_id": thread_id,
                    "checkpoint_ns": ns,
                    "checkpoint_id": checkpoint_id,
                    "task_id": task_id,
                    "task_path": task_path,
                    "idx": idx,
                    "channel": channel,
                    "value": codec.enc(self.serde.dumps_typed(value)),
                },
            )
            (regular if idx >= 0 else special).append(point)
        # A retried task must not duplicate or overwrite its regular writes; errors and
        # interrupts (negative idx) are replaced by the latest.
        key = (thread_id, ns)

        def done(group: list[StoredPoint], only_if: Where | None) -> Callable[[], None]:
            return lambda: self._latest.writes_done(
                key, checkpoint_id, group, insert_only=only_if is not None
            )

        return [
            _Upsert("checkpoint_writes", group, only_if, done(group, only_if))
            for group, only_if in ((regular, _NEVER), (special, None))
            if group
        ]

    async def _get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id, ns = _key(config)
        if checkpoint_id := get_checkpoint_id(config):
            found = await self._store.retrieve(
                "checkpoints", [codec.pid("checkpoint", thread_id, ns, checkpoint_id)]
            )
            return (await self._tuples([found[0].payload]))[0] if found else None
        latest = await self._latest.read((thread_id, ns), lambda: self._read_latest(thread_id, ns))
        if latest is None:
            return None
        payload, blobs, writes = latest
        return codec.build_tuple(self.serde, payload, blobs, writes.values())

    async def _read_latest(
        self, thread_id: str, ns: str
    ) -> tuple[dict, dict[str, dict], dict[str, dict]] | None:
        """The latest checkpoint's payload, and its blobs and pending writes by point id."""
        where = codec.where(kind="checkpoint", thread_id=thread_id, checkpoint_ns=ns)
        (top, _), unordered = await asyncio.gather(
            self._store.scroll("checkpoints", where, limit=8, order_by="seq", descending=True),
            self._store.count("checkpoints", where.and_(Match("seq", -1))),
        )
        if not top:
            return None
        head = top[0].payload["seq"]
        tied = len(top) == 8 and top[-1].payload["seq"] == head
        if head < 0 or tied or unordered:
            candidates = await self._scan("checkpoints", where)
        else:
            candidates = [p.payload for p in top if p.payload["seq"] == head]
        payload = max(candidates, key=lambda p: p["checkpoint_id"])
        blobs, writes = await asyncio.gather(
            self._store.retrieve("checkpoints", list(codec.blob_ids(payload))),
            every(
                self._store,
                "checkpoint_writes",
                codec.where(
                    thread_id=thread_id, checkpoint_ns=ns, checkpoint_id=payload["checkpoint_id"]
                ),
                size=PAGE,
            ),
        )
        return payload, {b.id: b.payload for b in blobs}, {w.id: w.payload for w in writes}

    async def _list(
        self,
        config: RunnableConfig | None,
        flt: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> builtins.list[CheckpointTuple]:
        must: list = [Match("kind", "checkpoint")]
        if config:
            conf = config["configurable"]
            must.append(Match("thread_id", str(conf["thread_id"])))
            if conf.get("checkpoint_ns") is not None:
                must.append(Match("checkpoint_ns", conf["checkpoint_ns"]))
            if checkpoint_id := get_checkpoint_id(config):
                must.append(Match("checkpoint_id", checkpoint_id))
        before_id = get_checkpoint_id(before) if before else None
        selected: list[dict[str, Any]] = []
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
                metadata = self.serde.loads_typed(codec.dec(payload["metadata"]))
                if not all(metadata.get(k) == v for k, v in flt.items()):
                    continue
            selected.append(payload)
        return await self._tuples(selected)

    async def _tuples(
        self, payloads: builtins.list[dict[str, Any]]
    ) -> builtins.list[CheckpointTuple]:
        """Checkpoint payloads -> tuples; the blobs and the writes of every thread are read at
        once."""
        if not payloads:
            return []
        by_thread: dict[str, set[str]] = {}
        for p in payloads:
            by_thread.setdefault(p["thread_id"], set()).add(p["checkpoint_id"])
        blob_ids = set().union(*map(codec.blob_ids, payloads))
        found_blobs, *found_writes = await asyncio.gather(
            self._store.retrieve("checkpoints", list(blob_ids)),
            *(
                self._scan(
                    "checkpoint_writes",
                    Where(must=(Match("thread_id", t), MatchAny("checkpoint_id", tuple(ids)))),
                )
                for t, ids in by_thread.items()
            ),
        )
        blobs = {b.id: b.payload for b in found_blobs}
        writes: dict[tuple[str, str, str], list[dict]] = {}
        for w in (w for page in found_writes for w in page):
            key = (w["thread_id"], w["checkpoint_ns"], w["checkpoint_id"])
            writes.setdefault(key, []).append(w)
        return [
            codec.build_tuple(
                self.serde,
                p,
                blobs,
                writes.get((p["thread_id"], p["checkpoint_ns"], p["checkpoint_id"]), []),
            )
            for p in payloads
        ]


def _held(records: Any) -> Records | None:
    """``records`` if it is the record API of a client in this process (``Records``: it may
    write and read on the caller's thread), ``None`` for a server's (``RemoteRecords``)."""
    return records if isinstance(records, Records) else None
