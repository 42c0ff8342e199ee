"""The store conformance suite on every backend, plus what only one backend has."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import uuid

import pytest

# Plain asserts in the shipped suite get pytest's detailed failure messages.
pytest.register_assert_rewrite("memhub.testing.conformance")

from qdrant_client import AsyncQdrantClient, models  # noqa: E402

from memhub.errors import MemHubError  # noqa: E402
from memhub.store.base import DENSE, Match, MatchAny, StoredPoint, Where  # noqa: E402
from memhub.store.edge import EdgeStore  # noqa: E402
from memhub.store.schema import COLLECTIONS  # noqa: E402
from memhub.store.server import QdrantServerStore, to_qdrant_filter  # noqa: E402
from memhub.testing.conformance import MemoryStoreConformance, uid, vec  # noqa: E402

SERVER_URL = os.environ.get("MEMHUB_QDRANT_URL")


class TestEdgeStore(MemoryStoreConformance):
    @pytest.fixture
    async def store(self, tmp_path):
        store = EdgeStore(tmp_path / "store")
        await store.open(vector_size=self.vector_size)
        yield store
        await store.close()

    def reopen(self, store):
        return EdgeStore(store.path)


class TestQdrantLocalMode(MemoryStoreConformance):
    """qdrant-client's ``:memory:`` mode; data lives as long as the client, so a
    second store on the same client is a reopen."""

    @pytest.fixture
    async def qdrant(self):
        client = AsyncQdrantClient(location=":memory:")
        yield client
        await client.close()

    @pytest.fixture
    async def store(self, qdrant):
        store = QdrantServerStore(":memory:", client=qdrant)
        await store.open(vector_size=self.vector_size)
        yield store
        await store.close()

    def reopen(self, store):
        return QdrantServerStore(store.url, prefix=store.prefix, client=store.client)


@pytest.mark.enable_socket
@pytest.mark.skipif(
    not SERVER_URL, reason="set MEMHUB_QDRANT_URL to run the suite on a Qdrant server"
)
class TestQdrantServer(MemoryStoreConformance):
    @pytest.fixture
    async def qdrant(self):
        client = AsyncQdrantClient(url=SERVER_URL, api_key=os.environ.get("MEMHUB_QDRANT_API_KEY"))
        yield client
        await client.close()

    @pytest.fixture
    async def store(self, qdrant):
        prefix = f"memhub_test_{uuid.uuid4().hex[:12]}"
        store = QdrantServerStore(SERVER_URL, prefix=prefix, client=qdrant)
        await store.open(vector_size=self.vector_size)
        yield store
        await store.close()
        for name in COLLECTIONS:
            await qdrant.delete_collection(f"{prefix}_{name}")

    def reopen(self, store):
        return QdrantServerStore(store.url, prefix=store.prefix, client=store.client)


# -- Qdrant Edge: one process per store ---------------------------------------------

_SECOND_PROCESS = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from memhub.errors import StoreLockedError
    from memhub.store.edge import EdgeStore

    start = time.monotonic()
    try:
        asyncio.run(EdgeStore(sys.argv[1]).open(8))
    except StoreLockedError as err:
        print(json.dumps({"error": str(err), "seconds": time.monotonic() - start}))
    else:
        print(json.dumps({"error": None}))
    """
)


async def test_edge_refuses_a_second_process_at_once_and_keeps_working(tmp_path):
    store = EdgeStore(tmp_path / "store")
    await store.open(vector_size=8)
    try:
        first = StoredPoint(uid(), {"content": "kept"}, vec(1))
        await store.upsert("memories", [first])

        proc = subprocess.run(
            [sys.executable, "-c", _SECOND_PROCESS, str(store.path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        outcome = json.loads(proc.stdout.strip().splitlines()[-1])
        assert outcome["error"] is not None, "the second process opened a store this process holds"
        assert f"process {os.getpid()}" in outcome["error"]
        assert "memhub serve" in outcome["error"]
        assert outcome["seconds"] < 2

        second = StoredPoint(uid(), {"content": "after"}, vec(0, 1))
        await store.upsert("memories", [second])
        got = {
            p.id: p
            for p in await store.retrieve("memories", [first.id, second.id], with_vectors=True)
        }
        assert got[first.id].payload == {"content": "kept"} and got[
            first.id
        ].dense == pytest.approx(vec(1))
        assert [h.point.id for h in await store.dense_query(vec(1), None, limit=1)] == [first.id]
        assert await store.count("memories") == 2
    finally:
        await store.close()


# -- QdrantServerStore specifics -----------------------------------------------------


def test_filters_translate_to_qdrant_models():
    where = Where(
        must=(Match("user_id", "u1"), Where(should=(MatchAny("layer", ("fact", "raw")),)))
    )
    assert to_qdrant_filter(where) == models.Filter(
        must=[
            models.FieldCondition(key="user_id", match=models.MatchValue(value="u1")),
            models.Filter(
                should=[
                    models.FieldCondition(key="layer", match=models.MatchAny(any=["fact", "raw"]))
                ]
            ),
        ]
    )
    assert to_qdrant_filter(None) is None


async def test_memory_store_owns_its_client():
    store = QdrantServerStore(":memory:", prefix="app")
    await store.open(vector_size=8)
    await store.upsert("memories", [StoredPoint(uid(), {"n": 1}, vec(1))])
    assert await store.client.collection_exists("app_memories")
    vectors = (await store.client.get_collection("app_memories")).config.params.vectors
    assert vectors[DENSE].size == 8 and vectors[DENSE].distance == models.Distance.COSINE
    await store.compact()  # nothing on disk: a no-op that keeps the data
    assert await store.count("memories") == 1
    await store.close()


@pytest.mark.enable_socket
async def test_unreachable_server_names_the_url():
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    store = QdrantServerStore(url)
    with pytest.raises(MemHubError, match=f"cannot reach the Qdrant server at {url}"):
        await store.open(vector_size=8)
    await store.close()
