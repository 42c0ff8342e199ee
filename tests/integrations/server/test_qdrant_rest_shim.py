"""The test-only Qdrant REST shim answers like qdrant-client's local mode: the store
conformance suite, run through ``QdrantServerStore`` over HTTP to it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

pytest.register_assert_rewrite("memhub.testing.conformance")

from qdrant_client import AsyncQdrantClient  # noqa: E402

from memhub.store.schema import COLLECTIONS  # noqa: E402
from memhub.store.server import QdrantServerStore  # noqa: E402
from memhub.testing import qdrant_rest  # noqa: E402
from memhub.testing.conformance import MemoryStoreConformance  # noqa: E402

pytestmark = pytest.mark.enable_socket


@pytest.fixture(scope="module")
def shim_url() -> Iterator[str]:
    with qdrant_rest.running() as url:
        yield url


class TestQdrantRestShim(MemoryStoreConformance):
    @pytest.fixture
    async def qdrant(self, shim_url: str) -> AsyncIterator[AsyncQdrantClient]:
        # no version check: its thread would outlive a quick test (the shim answers it)
        client = AsyncQdrantClient(url=shim_url, check_compatibility=False)
        yield client
        await client.close()

    @pytest.fixture
    async def store(self, qdrant: AsyncQdrantClient, shim_url: str) -> AsyncIterator[object]:
        prefix = f"t{uuid.uuid4().hex[:12]}"
        store = QdrantServerStore(shim_url, prefix=prefix, client=qdrant)
        await store.open(vector_size=self.vector_size)
        yield store
        await store.close()
        for name in COLLECTIONS:
            await qdrant.delete_collection(f"{prefix}_{name}")

    def reopen(self, store: QdrantServerStore) -> QdrantServerStore:
        return QdrantServerStore(store.url, prefix=store.prefix, client=store.client)


def test_the_shim_answers_unknown_paths_and_bad_bodies_like_a_server(shim_url: str) -> None:
    assert httpx.get(f"{shim_url}/").json()["title"].startswith("qdrant")
    missing = httpx.post(f"{shim_url}/collections/x/snapshots")
    assert missing.status_code == 404 and "not served" in missing.json()["status"]["error"]
    gone = httpx.get(f"{shim_url}/collections/never_made")
    assert gone.status_code == 404 and "never_made" in gone.json()["status"]["error"]
    bad = httpx.post(f"{shim_url}/collections/never_made/points/count", content=b"{")
    assert bad.status_code == 400
