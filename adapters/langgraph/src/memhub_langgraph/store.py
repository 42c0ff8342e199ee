"""``MemHubStore``: LangGraph's ``BaseStore`` on memhub's Qdrant backend.

Items live in the ``memories`` collection as records of layer ``"item"`` (see
``_items`` for the payload), invisible to memhub's own recall and search.
Natural-language search finds candidates with memhub's hybrid retrieval (dense +
BM25 fused by RRF, so exact keyword matches are not missed) and ranks them the way
LangGraph's own stores do: by ``score``, the cosine similarity of the query to the
item's best-matching text, clipped to [0, 1] and comparable across queries.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)

from memhub.bridge import Client
from memhub.embed.base import Embedder
from memhub.ids import to_point_id
from memhub.redact import redact
from memhub.store.base import DateRange, Match, MatchAny, StoredPoint, Where, pages
from memhub_langgraph import _items as it
from memhub_langgraph._indexer import INDEXING, PendingVectors
from memhub_langgraph._memories import MemoryNamespace, check_put
from memhub_langgraph._runner import LoopRunner, resolve_client

_PAGE = 1000


class MemHubStore(BaseStore):
    """Long-term LangGraph memory (``store.put/get/search``) kept by memhub on Qdrant.

    Example:
        >>> client = MemoryClient(storage_dir="./.memhub_data")
        >>> store = MemHubStore(client, scope=namespace_scope(user_id=1))
        >>> store.put(("prefs", "alice"), "diet", {"text": "vegetarian"})  # a plain item
        >>> store.put(("memories", "alice"), "m1", {"content": "I live in Berlin"})  # add
        >>> store.put(("memories", "alice"), "m2", {"content": "I moved to Munich"})
        >>> [i.value["content"] for i in store.search(("memories", "alice"), query="city")]
        ['I moved to Munich']
        >>> graph = builder.compile(store=store)

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient`` (or a remote one) whose store
            and embedder to use. Everything goes through its public record API
            (``client.records``), so the store works the same through the local hub.
        storage_dir: instead of ``client``: open a client on this folder (closed with the store).
        embed: the embedder of that client (default: memhub's).
        index: ``{"fields": [...]}``, the JSON paths embedded for ``query``
            search (default ``["$"]``, the whole value). Vectors come from the
            client's embedder, so ``embed`` is not accepted here and ``dims``
            must match it.
        ttl: LangGraph's ``TTLConfig`` (``default_ttl`` minutes,
            ``refresh_on_read``, ``sweep_interval_minutes``).
        scope: namespace -> memhub scope keys stored on each item, e.g.
            ``namespace_scope(user_id=1)`` tags ``("memories", "alice")`` with
            ``user_id="alice"``. Default: only the client's tenant and app_id.
        memory_namespace: the prefix of the memory namespace (default ``("memories",)``):
            ``(*prefix, user_id)`` is that user's memhub memory, the way LangGraph's docs and
            LangMem read it. ``search`` there is memhub's reconciled search (values
            ``{"content", "data", "layer", "occurred_at"}``, keys the memory ids); a ``put``
            of text (under ``content``, ``data``, ``text`` or ``memory``) or of
            ``{"messages": [...]}`` goes through ``add``, a put to the key of a current
            memory replaces it (``update``), a put of ``None`` deletes it; ``get`` reads
            one memory by id. ``ttl`` and ``index`` do not apply there. ``None``: every
            namespace is plain items.

    Semantics follow LangGraph's ``InMemoryStore``: a put with ``value=None``
    deletes; in one batch the last put to a key wins and reads see the state
    before the batch's puts. Like the SQL stores, a re-put keeps ``created_at``
    and a search without ``query`` lists newest ``updated_at`` first. Expired
    items are invisible at once and deleted by ``sweep_ttl``.
    """

    supports_ttl = True

    def __init__(
        self,
        client: Client | None = None,
        *,
        storage_dir: str | Path | None = None,
        embed: Embedder | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        scope: it.ScopeFn | None = None,
        memory_namespace: tuple[str, ...] | None = ("memories",),
    ) -> None:
        self.client, self._owns_client = resolve_client(client, storage_dir, embed, "MemHubStore")
        engine = getattr(self.client, "engine", None)  # a remote client embeds on the server
        asked: dict[str, Any] = dict(index or {})
        if asked.get("embed") is not None:
            raise ValueError(
                "MemHubStore embeds with its MemoryClient's embedder; "
                "pass MemoryClient(embed=...) instead of index['embed']"
            )
        dims = engine.embedder.dim if engine is not None else asked.get("dims")
        if asked.get("dims") not in (None, dims):
            raise ValueError(
                f"index dims {asked['dims']} != the client's embedder dimension {dims}"
            )
        fields = list(asked.get("fields") or ["$"])
        self.index_config: dict[str, Any] = {"dims": dims, "fields": fields}
        self._fields = it.tokenized_fields(fields)
        self.ttl_config = ttl
        self._scope = scope or it.no_scope
        self._memories = MemoryNamespace(self.client, memory_namespace)
        self._tenant = ""  # the client's records' tenant, read once the client is open
        self._app_id = self.client.scope.app_id
        self._sweeper: concurrent.futures.Future | None = None
        self._runner = LoopRunner("memhub-langgraph-store", "MemHubStore", self.client)
        self._write_lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
        # A local client's embedder makes vectors in this process: they follow the put
        # (``_indexer``). A remote client embeds on the server, within the put.
        self._vectors = (
            PendingVectors(self.client.records, engine.embedder, self._lock)
            if engine is not None
            else None
        )
        try:
            self._runner.run(self.client.open(), "open")
            # over HTTP the key decides the tenant, not the client's default scope
            self._tenant = self.client.records.tenant
            if self._vectors is not None:
                self._runner.run(self._vectors.recover(), "open")
        except BaseException:
            self._runner.close()
            raise

    @property
    def embedder(self) -> Embedder | None:
        """The client's embedder (``None`` for a remote client: the server embeds)."""
        engine = getattr(self.client, "engine", None)
        return engine.embedder if engine is not None else None

    # -- lifecycle ----------------------------------------------------------------------

    def flush(self) -> None:
        """Wait until every item put so far has its vectors stored (they follow the put,
        ``_indexer``): before a snapshot or export that should hold them, or before
        reading the records through the client. A search waits for them on its own."""
        if self._vectors is not None:
            self._runner.run(self._vectors.drain(), "flush")

    async def aflush(self) -> None:
        if self._vectors is not None:
            await self._runner.arun(self._vectors.drain())

    def close(self) -> None:
        """Stop the TTL sweeper and the loop thread; close the client if the store opened it."""
        if self._runner.closed:
            return
        self.stop_ttl_sweeper()
        try:
            if self._vectors is not None:  # what is left is embedded by the next open
                self._runner.run(self._vectors.drain(), "close")
        finally:
            if self._owns_client:
                self._runner.run(self.client.aclose(), "close")
            self._runner.close()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    def __enter__(self) -> MemHubStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> MemHubStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- BaseStore ----------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._runner.run(self._batch(list(ops)), "batch")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self._runner.arun(self._batch(list(ops)))

    async def _batch(self, ops: list[Op]) -> list[Result]:
        for op in ops:
            if not isinstance(op, GetOp | SearchOp | ListNamespacesOp | PutOp):
                raise ValueError(f"Unknown operation type: {type(op)}")
            validate_op_namespace(op)
            if isinstance(op, PutOp) and self._memories.user_of(op.namespace) is not None:
                check_put(op)  # bad input fails the batch before anything is written
        if self._vectors and any(isinstance(op, SearchOp) and op.query for op in ops):
            await self._vectors.drain()  # a search sees every put made before it
        at = it.now()
        results: list[Result] = [None] * len(ops)
        user_of = self._memories.user_of
        gets = [
            (i, op)
            for i, op in enumerate(ops)
            if isinstance(op, GetOp) and user_of(op.namespace) is None
        ]
        if gets:
            for (i, _), item in zip(
                gets, await self._get_many([op for _, op in gets], at), strict=True
            ):
                results[i] = item
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        memory_puts: dict[tuple[tuple[str, ...], str], tuple[PutOp, str]] = {}
        for i, op in enumerate(ops):
            user = _memory_user(op, user_of)
            if user is not None and isinstance(op, GetOp):
                results[i] = await self._memories.get(op, user)
            elif user is not None and isinstance(op, SearchOp):
                results[i] = await self._memories.search(op, user)
            elif user is not None and isinstance(op, PutOp):
                memory_puts[(tuple(op.namespace), op.key)] = (op, user)
            elif isinstance(op, SearchOp):
                results[i] = await self._search(op, at)
            elif isinstance(op, ListNamespacesOp):
                results[i] = await self._list_namespaces(op, at)
            elif isinstance(op, PutOp):
                puts[(tuple(op.namespace), op.key)] = op
        if puts:
            async with self._lock():
                await self._apply_puts(puts, it.now())
        for op, user in memory_puts.values():
            await self._memories.put(op, user)
        return results

    def _lock(self) -> asyncio.Lock:
        """The lock that orders writes, on the running loop."""
        loop = asyncio.get_running_loop()
        if self._write_lock is None or self._write_lock[0] is not loop:
            self._write_lock = (loop, asyncio.Lock())
        return self._write_lock[1]

    # -- reads --------------------------------------------------------------------------

    async def _get_many(self, ops: list[GetOp], at: datetime) -> list[Item | None]:
        pids = [it.item_point_id(self._tenant, op.namespace, op.key) for op in ops]
        found = {
            p.id: p.payload for p in await self.client.records.get("memories", list(set(pids)))
        }
        out: list[Item | None] = []
        refresh: dict[str, dict] = {}
        for op, pid in zip(ops, pids, strict=True):
            payload = found.get(pid)
            if payload is None or payload.get("layer") != it.ITEM or it.is_expired(payload, at):
                out.append(None)
                continue
            if op.refresh_ttl and payload.get("ttl_minutes") is not None:
                refresh[pid] = payload
            out.append(_item(payload, searched=False))
        await self._refresh(refresh.values(), at)
        return out

    async def _scan(
        self, where: Where, at: datetime, flt: Mapping[str, Any] | None
    ) -> list[tuple[dict, dict]]:
        """Every live item in ``where`` whose value passes ``flt``, with its decoded value."""
        out: list[tuple[dict, dict]] = []
        async for page in pages(self.client.records, "memories", where, size=_PAGE):
            for point in page:
                if it.is_expired(point.payload, at):
                    continue
                value = it.decode_value(point.payload)
                if it.matches_filter(value, flt):
                    out.append((point.payload, value))
        return out

    async def _search(self, op: SearchOp, at: datetime) -> list[SearchItem]:
        where = it.items_where(self._tenant, op.namespace_prefix)
        if op.query:
            hits = await self._ranked(op, where, at)
        else:
            hits = [(p, v, None) for p, v in _newest_first(await self._scan(where, at, op.filter))]
            hits = hits[op.offset : op.offset + op.limit]
        if op.refresh_ttl:
            await self._refresh((p for p, _, _ in hits if p.get("ttl_minutes") is not None), at)
        return [_item(p, v, score) for p, v, score in hits]

    async def _ranked(
        self, op: SearchOp, where: Where, at: datetime
    ) -> list[tuple[dict, dict, float | None]]:
        """Hybrid-ranked items, then (like ``InMemoryStore``) unembedded ones to fill ``limit``."""
        assert op.query
        allowed: dict[str, tuple[dict, dict]] | None = None
        texts_where = it.items_where(self._tenant, op.namespace_prefix, (it.ITEM, it.ITEM_TEXT))
        if op.filter:
            allowed = {p["item"]: (p, v) for p, v in await self._scan(where, at, op.filter)}
            if not allowed:
                return []
            texts_where = texts_where.and_(MatchAny("item", tuple(allowed)))
        want = max(op.offset + op.limit, 0)
        ranked: list[tuple[dict, dict, float]] = []
        n = max(want, 10)
        while want:
            hits = await self.client.records.search(op.query, texts_where, n)
            ranked = await self._unique_items(hits, allowed, at)
            if len(ranked) >= want or len(hits) < n:
                break
            n *= 4
        ranked.sort(key=lambda pvs: -pvs[2])  # stable: cosine ties keep the hybrid order
        kept: list[tuple[dict, dict, float | None]] = list(ranked[op.offset : op.offset + op.limit])
        if len(kept) < op.limit:
            # InMemoryStore's corner case: items without vectors fill the page, unscored
            # (and, as there, without the offset applied to them).
            bare = _newest_first(
                [pv for pv in await self._scan(where, at, op.filter) if not pv[0]["texts"]]
            )
            kept.extend((p, v, None) for p, v in bare[: op.limit - len(kept)])
        return kept

    async def _unique_items(
        self, hits: list[tuple[dict, float]], allowed, at: datetime
    ) -> list[tuple[dict, dict, float]]:
        """Text hits -> their items, best score each, dropping expired ones."""
        order: list[str] = []
        best: dict[str, float] = {}
        for payload, score in hits:
            pid = payload["item"]
            if pid not in best:
                order.append(pid)
            best[pid] = max(score, best.get(pid, 0.0))
        records: dict[str, tuple[dict, dict]] = dict(allowed or {})
        missing = [pid for pid in order if pid not in records]
        for point in await self.client.records.get("memories", missing):
            if point.payload.get("layer") == it.ITEM and not it.is_expired(point.payload, at):
                records[point.id] = (point.payload, it.decode_value(point.payload))
        return [(*records[pid], best[pid]) for pid in order if pid in records]

    async def _list_namespaces(self, op: ListNamespacesOp, at: datetime) -> list[tuple[str, ...]]:
        where = it.items_where(self._tenant, it.literal_prefix(op.match_conditions))
        found = {
            tuple(p.payload["namespace"])
            async for page in pages(self.client.records, "memories", where, size=_PAGE)
            for p in page
            if not it.is_expired(p.payload, at)
        }
        namespaces = [
            ns for ns in found if all(it.does_match(c, ns) for c in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            namespaces = list({ns[: op.max_depth] for ns in namespaces})
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    async def _refresh(self, payloads: Iterable[dict], at: datetime) -> None:
        """Push the expiry of these items ``ttl_minutes`` past now (vectors kept)."""
        fresh = {p["item"]: it.refreshed(p, at) for p in payloads}
        if not fresh:
            return
        records = self.client.records
        current = await records.get("memories", list(fresh), with_vectors=True)
        await records.put(
            "memories", [StoredPoint(p.id, fresh[p.id], p.dense, p.sparse) for p in current]
        )

    # -- writes -------------------------------------------------------------------------

    async def _apply_puts(
        self, puts: dict[tuple[tuple[str, ...], str], PutOp], at: datetime
    ) -> None:
        records = self.client.records
        pids = {k: it.item_point_id(self._tenant, k[0], k[1]) for k in puts}
        old = {
            p.id: p.payload
            for p in await records.get("memories", list(pids.values()))
            if p.payload.get("layer") == it.ITEM
        }
        payloads: list[dict] = []
        texts: list[str | None] = []
        stale: list[str] = []
        for (namespace, key), op in puts.items():
            pid = pids[(namespace, key)]
            before = old.get(pid)
            had = int(before.get("texts", 0)) if before else 0
            if op.value is None:
                if before:
                    stale += [pid, *(it.text_point_id(pid, i) for i in range(1, had))]
                continue
            found = [] if op.index is False else it.extract_texts(op.value, op.index, self._fields)
            live = before if before is not None and not it.is_expired(before, at) else None
            item = it.item_payload(
                pid,
                tenant=self._tenant,
                scope=self._item_scope(namespace),
                namespace=namespace,
                key=key,
                value=op.value,
                created_at=live["created_at"] if live is not None else it.iso(at),
                at=at,
                ttl=op.ttl,
                texts=len(found),
            )
            payloads.append(item)
            # The value is stored as given (get must return it), but secrets never reach the index.
            texts.append(_indexable(found[0][1]) if found else None)
            for i, (path, text) in enumerate(found[1:], start=1):
                payloads.append(it.text_payload(item, it.text_point_id(pid, i), path))
                texts.append(_indexable(text))
            stale += [it.text_point_id(pid, i) for i in range(max(len(found), 1), had)]
        if self._vectors is None:
            if payloads:
                await records.insert(payloads, texts)
        else:  # stored now, without vectors; they follow (``_indexer``)
            for payload, indexed in zip(payloads, texts, strict=True):
                if indexed is not None:
                    payload[INDEXING] = indexed
            if payloads:
                await records.insert(payloads, [None] * len(payloads))
            self._vectors.add(
                {to_point_id(p["id"]): t for p, t in zip(payloads, texts, strict=True) if t}
            )
        if stale:
            await records.delete("memories", stale)

    def _item_scope(self, namespace: tuple[str, ...]) -> dict[str, str]:
        scope = {"app_id": self._app_id} if self._app_id else {}
        scope.update({k: v for k, v in self._scope(namespace).items() if k != "tenant" and v})
        return scope

    # -- TTL ----------------------------------------------------------------------------

    def sweep_ttl(self) -> int:
        """Delete expired items now; returns how many were deleted."""
        return self._runner.run(self._sweep(), "sweep_ttl")

    async def asweep_ttl(self) -> int:
        return await self._runner.arun(self._sweep())

    async def _sweep(self) -> int:
        store = self.client.records
        where = Where(
            must=(
                Match("tenant", self._tenant),
                Match("layer", it.ITEM),
                DateRange("expires_at", lte=it.iso(it.now())),
            )
        )
        deleted = 0
        while True:
            page, _ = await store.scroll("memories", where, limit=_PAGE)
            if not page:
                return deleted
            ids = [p.id for p in page]
            for p in page:
                ids += [it.text_point_id(p.id, i) for i in range(1, int(p.payload.get("texts", 0)))]
            await store.delete("memories", ids)
            deleted += len(page)

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future:
        """Sweep expired items periodically on the store's loop until ``stop_ttl_sweeper``."""
        if self._sweeper is not None and not self._sweeper.done():
            return self._sweeper
        interval = (
            sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        )

        async def sweep_forever() -> None:
            while True:
                await self._sweep()
                await asyncio.sleep(interval * 60)

        self._sweeper = asyncio.run_coroutine_threadsafe(sweep_forever(), self._runner.loop)
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the periodic sweep; ``True`` once it has stopped."""
        if self._sweeper is None:
            return True
        self._sweeper.cancel()
        try:
            self._sweeper.result(timeout=timeout)
        except (concurrent.futures.CancelledError, asyncio.CancelledError):
            pass
        except concurrent.futures.TimeoutError:
            return False
        self._sweeper = None
        return True


def _memory_user(op: Op, user_of: Any) -> str | None:
    """The user whose memory ``op`` reads or writes, if it is on the memory namespace."""
    if isinstance(op, SearchOp):
        return user_of(op.namespace_prefix)
    if isinstance(op, GetOp | PutOp):
        return user_of(op.namespace)
    return None


def _indexable(text: str) -> str:
    return redact(text).text or text


def _newest_first(items: list[tuple[dict, dict]]) -> list[tuple[dict, dict]]:
    return sorted(
        items, key=lambda pv: (pv[0]["updated_at"], pv[0]["ns"], pv[0]["key"]), reverse=True
    )


def _item(
    payload: dict, value: dict | None = None, score: float | None = None, *, searched: bool = True
) -> Any:
    fields = {
        "namespace": tuple(payload["namespace"]),
        "key": payload["key"],
        "value": it.decode_value(payload) if value is None else value,
        "created_at": datetime.fromisoformat(payload["created_at"]),
        "updated_at": datetime.fromisoformat(payload["updated_at"]),
    }
    return SearchItem(**fields, score=score) if searched else Item(**fields)
