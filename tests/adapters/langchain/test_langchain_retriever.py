"""MemHubRetriever: documents with score and memory metadata, sync and async, per-user."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from memhub import MemoryClient
from memhub.bridge import MemHub
from memhub.testing import HashEmbedder
from memhub_langchain import MemHubRetriever


@pytest.fixture
def seeded(sync_client):
    first = sync_client.add(content="The main database is MySQL 8", user_id="alice")
    sync_client.add(content="Caching goes through Redis 7", user_id="alice")
    sync_client.add(content="The main database is Oracle 19", user_id="bob")
    old_id = first.decisions[0].memory_id
    new_id = sync_client.update(old_id, "The main database is PostgreSQL 16", user_id="alice")
    return sync_client, old_id, new_id


def test_documents_carry_the_memory_and_its_history(seeded):
    client, old_id, new_id = seeded
    docs = MemHubRetriever(client=client, user_id="alice", k=2).invoke("main database")

    assert all(isinstance(d, Document) for d in docs) and len(docs) == 2
    top = docs[0]
    assert top.page_content == "The main database is PostgreSQL 16"
    assert top.id == top.metadata["id"] == new_id
    assert top.metadata["evolution_chain"] == [
        old_id
    ]  # the replaced version is named, not returned
    assert top.metadata["layer"] in ("fact", "profile") and top.metadata["group"] in (
        "profile",
        "normal",
        "proactive",
    )
    assert top.metadata["created_at"] and top.metadata["user_id"] == "alice"
    assert docs[0].metadata["score"] >= docs[1].metadata["score"] > 0
    assert not any("MySQL" in d.page_content or "Oracle" in d.page_content for d in docs)


async def test_async_matches_sync_and_users_stay_apart(seeded):
    client, _, _ = seeded
    retriever = MemHubRetriever(client=client, user_id="alice")
    sync_docs = retriever.invoke("main database")
    async_docs = await retriever.ainvoke("main database")
    assert [d.id for d in async_docs] == [d.id for d in sync_docs]

    bob = await retriever.ainvoke("main database", user_id="bob", k=1)
    assert [d.page_content for d in bob] == ["The main database is Oracle 19"]


async def test_async_client_serves_sync_invoke_too(client):
    await client.add(content="Our support hours are 9 to 5", user_id="alice")
    retriever = MemHubRetriever(client=client, user_id="alice", k=1)
    assert (await retriever.ainvoke("support hours"))[
        0
    ].page_content == "Our support hours are 9 to 5"


def test_sync_invoke_with_an_async_client(tmp_path):
    client = MemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path)
    hub = MemHub(client)  # sync calls run the async client on the adapter's loop thread
    try:
        retriever = MemHubRetriever(client=client, user_id="alice", k=1)
        assert retriever.invoke("anything") == []
        hub.add_sync([{"role": "user", "content": "I drive a red bicycle"}], user_id="alice")
        assert retriever.invoke("bicycle")[0].page_content == "I drive a red bicycle"
    finally:
        hub.call_sync(lambda api: api.aclose())


def test_user_id_is_required(sync_client):
    with pytest.raises(ValueError, match="needs a user_id"):
        MemHubRetriever(client=sync_client).invoke("x")
