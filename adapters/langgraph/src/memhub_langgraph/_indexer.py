"""Write-behind vectors for ``MemHubStore``: a put returns once its record is stored.

Embedding one short text with the bundled e5 model costs 12-60 ms of CPU, everything
else in a put about 1 ms (``bench/langgraph_bench.py``). So a put stores the item at
once (``get`` sees it, and it is on disk) and queues its texts; one background task
embeds what is queued, the puts made meanwhile in one batch, and adds the vectors. A
search by query first waits for the queue, so it sees every put made before it.

Until its vectors are written a record carries the text they are made from
(``INDEXING``), so a store opened after a crash embeds what the crash left out. The
vectors are written under the store's write lock and only onto a record that still
carries that text: a record deleted or put again meanwhile is left to its own entry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from memhub.embed.base import Embedder
from memhub.embed.bm25 import Bm25Encoder
from memhub.store.base import IsEmpty, StoredPoint, Where, every

INDEXING = "indexing"


class PendingVectors:
    """The texts of one store's records that wait for their vectors (see the module docstring).

    Args:
        records: the client's record API.
        embedder: the client's embedder (the records' own, so vectors match the store's).
        lock: the store's write lock on the running loop.
    """

    def __init__(self, records: Any, embedder: Embedder, lock: Callable[[], asyncio.Lock]) -> None:
        self._records = records
        self._embedder = embedder
        self._bm25 = Bm25Encoder()
        self._lock = lock
        self._pending: dict[str, str] = {}  # point id -> the text its vectors are made from
        self._task: asyncio.Task[None] | None = None

    def __bool__(self) -> bool:
        return bool(self._pending)

    def add(self, texts: dict[str, str]) -> None:
        """Queue these records' texts (already stored in their ``INDEXING`` field)."""
        self._pending.update(texts)
        if self._pending and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run())
            self._task.add_done_callback(_retrieved)

    async def recover(self) -> None:
        """Queue the records a previous process stored but did not embed."""
        where = Where(must_not=(IsEmpty(INDEXING),))
        left = await every(self._records, "memories", where, size=1000)
        self.add({p.id: p.payload[INDEXING] for p in left})

    async def drain(self) -> None:
        """Wait until every queued text has its vectors; raises what embedding raised."""
        while self._pending:
            if self._task is None or self._task.done():
                self.add({})  # the last run failed: try again, for this caller to see
                if self._task is None:
                    return
            await asyncio.shield(self._task)

    async def _run(self) -> None:
        while self._pending:
            batch = dict(self._pending)
            ids, texts = list(batch), list(batch.values())
            dense = await self._embedder.embed_passages(texts)  # outside the lock: puts go on
            sparse = [self._bm25.document(t) for t in texts]
            async with self._lock():
                await self._write(ids, texts, dense, sparse)
                for pid, text in batch.items():
                    if self._pending.get(pid) == text:
                        del self._pending[pid]

    async def _write(
        self, ids: list[str], texts: list[str], dense: Sequence[list[float]], sparse: list[Any]
    ) -> None:
        stored = {p.id: p.payload for p in await self._records.get("memories", ids)}
        points = []
        for pid, text, vector, terms in zip(ids, texts, dense, sparse, strict=True):
            payload = stored.get(pid)
            if payload is None or payload.get(INDEXING) != text:
                continue  # deleted, or put again with another text (queued on its own)
            payload = {k: v for k, v in payload.items() if k != INDEXING}
            points.append(StoredPoint(pid, payload, vector, terms))
        if points:
            await self._records.put("memories", points)


def _retrieved(task: asyncio.Task[None]) -> None:
    # A failed run leaves its texts queued; ``drain`` runs them again and raises there.
    if not task.cancelled():
        task.exception()
