"""MemHubRetriever passes LangChain's standard retriever integration tests."""

from __future__ import annotations

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from memhub import SyncMemoryClient
from memhub.testing import HashEmbedder
from memhub_langchain import MemHubRetriever

FACTS = [
    "We deploy the API with Docker on Kubernetes",
    "The main database is PostgreSQL 16",
    "Caching goes through Redis 7",
    "The frontend is written in TypeScript with React",
    "Nightly backups are stored in S3",
]


class TestMemHubRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _client(self, tmp_path):
        client = SyncMemoryClient(
            storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path
        )
        for fact in FACTS:
            client.add(content=fact, user_id="alice")
        self.client = client
        yield
        client.close()

    @property
    def retriever_constructor(self) -> type[MemHubRetriever]:
        return MemHubRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"client": self.client, "user_id": "alice"}

    @property
    def retriever_query_example(self) -> str:
        return "which database and cache do we run?"
