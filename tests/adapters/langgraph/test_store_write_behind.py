"""A put returns once its item is stored; its vectors follow (``memhub_langgraph._indexer``).

What a user can tell: ``get`` and ``search`` see every put made before them, whatever
the embedder is still doing; an item deleted or put again meanwhile ends up as the last
put left it; a store opened after a crash makes the vectors the crash left out.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

from lg_fakes import run_apart

from memhub.store.base import HasVector, Match, Where
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubStore
from memhub_langgraph._indexer import INDEXING


class GatedEmbedder(HashEmbedder):
    """Embeds passages only while the gate is open: the put path must not wait for it."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()

    async def embed_passages(self, texts):
        while texts and not self.gate.is_set():
            await asyncio.sleep(0.005)
        return await super().embed_passages(texts)


def _with_vectors(store: MemHubStore) -> int:
    where = Where(must=(Match("layer", "item"),)).and_(HasVector("dense"))
    return run_apart(store.client.records.count("memories", where))


def test_a_put_does_not_wait_for_its_embedding_and_a_search_does(make_client):
    embed = GatedEmbedder()
    store = MemHubStore(make_client(embed=embed))
    embed.gate.clear()
    store.put(("s",), "diet", {"text": "Alice is vegetarian"})  # returns with the gate shut
    assert store.get(("s",), "diet").value == {"text": "Alice is vegetarian"}
    assert _with_vectors(store) == 0
    threading.Timer(0.2, embed.gate.set).start()
    assert [i.key for i in store.search(("s",), query="vegetarian")] == ["diet"]
    assert _with_vectors(store) == 1
    store.close()


def test_flush_returns_once_every_put_has_its_vectors(make_client):
    embed = GatedEmbedder()
    store = MemHubStore(make_client(embed=embed))
    embed.gate.clear()
    store.put(("s",), "a", {"text": "first"})
    store.put(("s",), "b", {"text": "second"})
    assert _with_vectors(store) == 0
    threading.Timer(0.2, embed.gate.set).start()
    store.flush()
    assert _with_vectors(store) == 2
    store.close()


def test_what_is_deleted_or_put_again_while_embedding_ends_as_the_last_put_left_it(make_client):
    embed = GatedEmbedder()
    store = MemHubStore(make_client(embed=embed))
    embed.gate.clear()
    store.put(("s",), "gone", {"text": "deleted before its vectors"})
    store.put(("s",), "k", {"text": "first wording about kayaks"})
    store.put(("s",), "gone", None)
    store.put(("s",), "k", {"text": "second wording about bicycles"})
    embed.gate.set()
    hits = store.search(("s",), query="second wording about bicycles")
    assert [(i.key, i.value) for i in hits] == [("k", {"text": "second wording about bicycles"})]
    assert store.get(("s",), "gone") is None
    assert _with_vectors(store) == 1
    store.close()


# A process that puts an item while its embedder never answers, then dies at once.
_CRASH = """
import asyncio, os, sys
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubStore

class Stuck(HashEmbedder):
    async def embed_passages(self, texts):
        await asyncio.Event().wait()

store = MemHubStore(storage_dir=sys.argv[1], embed=Stuck())
store.put(("p",), "k", {"text": "stored, never embedded"})
os._exit(0)
"""


def test_a_store_opened_after_a_crash_embeds_what_was_left_out(tmp_path):
    subprocess.run([sys.executable, "-c", _CRASH, str(tmp_path / "s")], check=True, timeout=120)
    store = MemHubStore(storage_dir=tmp_path / "s", embed=HashEmbedder())
    assert [i.key for i in store.search(("p",), query="never embedded")] == ["k"]
    (point,) = run_apart(store.client.records.get("memories", [_item_id(store)], with_vectors=True))
    assert INDEXING not in point.payload and point.dense
    store.close()


def _item_id(store: MemHubStore) -> str:
    from memhub_langgraph._items import item_point_id

    return item_point_id(store.client.scope.tenant, ("p",), "k")
