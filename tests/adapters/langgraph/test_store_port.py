"""LangGraph's own store suite (``libs/checkpoint-sqlite/tests/test_store.py``), ported to
``MemHubStore``.

Every test of the original is here, in its order and under its name. The
mapping, applied throughout:

- ``SqliteStore.from_conn_string(...)`` -> a ``MemHubStore`` on a fresh memhub store.
  The original's ``"memory"``/``"file"`` connection params become memhub's two
  backends: ``"edge"`` (Qdrant Edge in a temp dir) and ``"qdrant-local"``
  (qdrant-client's ``:memory:`` mode, the server code path).
- The fake ``CharacterEmbeddings`` -> the client's ``memhub.testing.HashEmbedder``;
  ``text_fields`` -> ``index={"fields": ...}``.
- Scores. ``query`` search finds candidates with memhub's hybrid retrieval (dense
  + BM25) and scores them, as the original's stores do, by cosine similarity of the
  query to the best-matching text (clipped to [0, 1], ``HashEmbedder`` cosines), so
  the original's cosine assertions hold as written.
- Tests of SQLite internals (migrations, GLOB escaping, the SQL it generates)
  become tests of the matching memhub layer (payload indexes, the Qdrant filter
  builders, label matching); each says what it checks instead.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Generator, Iterable
from contextlib import contextmanager
from typing import Any, cast

import pytest
from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from lg_fakes import BACKENDS, run_apart

from memhub.store.base import HasVector, Match, Where
from memhub.store.schema import INDEXES, index_spec
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubStore
from memhub_langgraph._items import does_match, items_where, literal_prefix

CONN_TYPES = BACKENDS  # the original's ["memory", "file"]


@pytest.fixture(params=CONN_TYPES)
def store(request: Any, make_client) -> Generator[MemHubStore, None, None]:
    """A ``MemHubStore`` on a fresh store of each backend (the original's memory/file
    SqliteStore).
    """
    with MemHubStore(make_client("store", request.param)) as s:
        yield s


@pytest.fixture
def vector_store(make_client):
    """``create_vector_store`` of the original: ``vector_store(text_fields=None,
    conn_type="edge")``.
    """

    @contextmanager
    def create(
        text_fields: list[str] | None = None, conn_type: str = "edge", embed=None
    ) -> Generator[MemHubStore, None, None]:
        index = {"fields": text_fields} if text_fields is not None else None
        with MemHubStore(
            make_client(f"vectors-{uuid.uuid4().hex[:8]}", conn_type, embed), index=index
        ) as s:
            yield s

    return create


# Only cosine: memhub's collections are cosine (see test_vector_search_ranks_closest_first).
VECTOR_TYPES = ["cosine"]


def test_batch_order(store: MemHubStore) -> None:
    store.put(("test", "foo"), "key1", {"data": "value1"})
    store.put(("test", "bar"), "key2", {"data": "value2"})

    ops = [
        GetOp(namespace=("test", "foo"), key="key1"),
        PutOp(namespace=("test", "bar"), key="key2", value={"data": "value2"}),
        SearchOp(namespace_prefix=("test",), filter={"data": "value1"}, limit=10, offset=0),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
        GetOp(namespace=("test",), key="key3"),
    ]

    results = store.batch(cast(Iterable[GetOp | PutOp | SearchOp | ListNamespacesOp], ops))
    assert len(results) == 5
    assert isinstance(results[0], Item)
    assert isinstance(results[0].value, dict)
    assert results[0].value == {"data": "value1"}
    assert results[0].key == "key1"
    assert results[0].namespace == ("test", "foo")
    assert results[1] is None
    assert isinstance(results[2], list)
    assert len(results[2]) == 1
    assert results[2][0].key == "key1"
    assert results[2][0].value == {"data": "value1"}
    assert isinstance(results[3], list)
    assert len(results[3]) > 0
    assert ("test", "foo") in results[3]
    assert ("test", "bar") in results[3]
    assert results[4] is None

    ops_reordered = [
        SearchOp(namespace_prefix=("test",), filter=None, limit=5, offset=0),
        GetOp(namespace=("test", "bar"), key="key2"),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=5, offset=0),
        PutOp(namespace=("test",), key="key3", value={"data": "value3"}),
        GetOp(namespace=("test", "foo"), key="key1"),
    ]

    results_reordered = store.batch(
        cast(Iterable[GetOp | PutOp | SearchOp | ListNamespacesOp], ops_reordered)
    )
    assert len(results_reordered) == 5
    assert isinstance(results_reordered[0], list)
    assert len(results_reordered[0]) >= 2
    assert isinstance(results_reordered[1], Item)
    assert results_reordered[1].value == {"data": "value2"}
    assert results_reordered[1].key == "key2"
    assert results_reordered[1].namespace == ("test", "bar")
    assert isinstance(results_reordered[2], list)
    assert len(results_reordered[2]) > 0
    assert results_reordered[3] is None
    assert isinstance(results_reordered[4], Item)
    assert results_reordered[4].value == {"data": "value1"}
    assert results_reordered[4].key == "key1"
    assert results_reordered[4].namespace == ("test", "foo")

    item3 = store.get(("test",), "key3")
    assert item3 is not None
    assert item3.value == {"data": "value3"}


def test_batch_get_ops(store: MemHubStore) -> None:
    store.put(("test",), "key1", {"data": "value1"})
    store.put(("test",), "key2", {"data": "value2"})

    ops = [
        GetOp(namespace=("test",), key="key1"),
        GetOp(namespace=("test",), key="key2"),
        GetOp(namespace=("test",), key="key3"),
    ]

    results = store.batch(ops)

    assert len(results) == 3
    assert results[0] is not None
    assert results[1] is not None
    assert results[2] is None
    assert results[0].key == "key1"
    assert results[1].key == "key2"


def test_batch_put_ops(store: MemHubStore) -> None:
    ops = [
        PutOp(namespace=("test",), key="key1", value={"data": "value1"}),
        PutOp(namespace=("test",), key="key2", value={"data": "value2"}),
        PutOp(namespace=("test",), key="key3", value=None),
    ]

    results = store.batch(ops)
    assert len(results) == 3
    assert all(result is None for result in results)

    item1 = store.get(("test",), "key1")
    item2 = store.get(("test",), "key2")
    item3 = store.get(("test",), "key3")

    assert item1 and item1.value == {"data": "value1"}
    assert item2 and item2.value == {"data": "value2"}
    assert item3 is None


def test_batch_search_ops(store: MemHubStore) -> None:
    test_data = [
        (("test", "foo"), "key1", {"data": "value1", "tag": "a"}),
        (("test", "bar"), "key2", {"data": "value2", "tag": "a"}),
        (("test", "baz"), "key3", {"data": "value3", "tag": "b"}),
    ]
    for namespace, key, value in test_data:
        store.put(namespace, key, value)

    ops = [
        SearchOp(namespace_prefix=("test",), filter={"tag": "a"}, limit=10, offset=0),
        SearchOp(namespace_prefix=("test",), filter=None, limit=2, offset=0),
        SearchOp(namespace_prefix=("test", "foo"), filter=None, limit=10, offset=0),
    ]

    results = store.batch(ops)
    assert len(results) == 3

    assert len(results[0]) == 2
    assert all(item.value["tag"] == "a" for item in results[0])

    assert len(results[1]) == 2

    assert len(results[2]) == 1
    assert results[2][0].namespace == ("test", "foo")


def test_batch_list_namespaces_ops(store: MemHubStore) -> None:
    test_data = [
        (("test", "documents", "public"), "doc1", {"content": "public doc"}),
        (("test", "documents", "private"), "doc2", {"content": "private doc"}),
        (("test", "images", "public"), "img1", {"content": "public image"}),
        (("prod", "documents", "public"), "doc3", {"content": "prod doc"}),
    ]
    for namespace, key, value in test_data:
        store.put(namespace, key, value)

    ops = [
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
        ListNamespacesOp(match_conditions=None, max_depth=2, limit=10, offset=0),
        ListNamespacesOp(
            match_conditions=tuple([MatchCondition("suffix", ("public",))]),
            max_depth=None,
            limit=10,
            offset=0,
        ),
    ]

    results = store.batch(cast(Iterable[GetOp | PutOp | SearchOp | ListNamespacesOp], ops))
    assert len(results) == 3
    assert len(results[0]) == len(test_data)
    assert all(len(ns) <= 2 for ns in results[1])
    assert all(ns[-1] == "public" for ns in results[2])


class TestMemHubStore:
    """The original's ``TestSqliteStore`` (there on an in-memory SQLite; here on both backends)."""

    def test_basic_store_ops(self, store: MemHubStore) -> None:
        namespace = ("test", "documents")
        item_id = "doc1"
        item_value = {"title": "Test Document", "content": "Hello, World!"}

        store.put(namespace, item_id, item_value)
        item = store.get(namespace, item_id)

        assert item
        assert item.namespace == namespace
        assert item.key == item_id
        assert item.value == item_value

        import time

        time.sleep(0.01)

        updated_value = {"title": "Updated Document", "content": "Hello, Updated!"}
        store.put(namespace, item_id, updated_value)
        updated_item = store.get(namespace, item_id)

        assert updated_item.value == updated_value
        # The original skips this for SQLite's coarse clock; memhub keeps microseconds.
        assert updated_item.updated_at > item.updated_at

        different_namespace = ("test", "other_documents")
        item_in_different_namespace = store.get(different_namespace, item_id)
        assert item_in_different_namespace is None

        store.delete(namespace, item_id)
        deleted_item = store.get(namespace, item_id)
        assert deleted_item is None

    def test_list_namespaces(self, store: MemHubStore) -> None:
        test_namespaces = [
            ("test", "documents", "public"),
            ("test", "documents", "private"),
            ("test", "images", "public"),
            ("test", "images", "private"),
            ("prod", "documents", "public"),
            ("prod", "documents", "private"),
        ]

        for namespace in test_namespaces:
            store.put(namespace, "dummy", {"content": "dummy"})

        all_namespaces = store.list_namespaces()
        assert len(all_namespaces) == len(test_namespaces)

        test_prefix_namespaces = store.list_namespaces(prefix=["test"])
        assert len(test_prefix_namespaces) == 4
        assert all(ns[0] == "test" for ns in test_prefix_namespaces)

        public_namespaces = store.list_namespaces(suffix=["public"])
        assert len(public_namespaces) == 3
        assert all(ns[-1] == "public" for ns in public_namespaces)

        depth_2_namespaces = store.list_namespaces(max_depth=2)
        assert all(len(ns) <= 2 for ns in depth_2_namespaces)

        paginated_namespaces = store.list_namespaces(limit=3)
        assert len(paginated_namespaces) == 3

        for namespace in test_namespaces:
            store.delete(namespace, "dummy")
        # Added: namespaces exist only while they hold items.
        assert store.list_namespaces() == []

    def test_search(self, store: MemHubStore) -> None:
        test_data = [
            (
                ("test", "docs"),
                "doc1",
                {"title": "First Doc", "author": "Alice", "tags": ["important"]},
            ),
            (("test", "docs"), "doc2", {"title": "Second Doc", "author": "Bob", "tags": ["draft"]}),
            (
                ("test", "images"),
                "img1",
                {"title": "Image 1", "author": "Alice", "tags": ["final"]},
            ),
        ]

        for namespace, key, value in test_data:
            store.put(namespace, key, value)

        all_items = store.search(["test"])
        assert len(all_items) == 3

        docs_items = store.search(["test", "docs"])
        assert len(docs_items) == 2
        assert all(item.namespace == ("test", "docs") for item in docs_items)

        alice_items = store.search(["test"], filter={"author": "Alice"})
        assert len(alice_items) == 2
        assert all(item.value["author"] == "Alice" for item in alice_items)

        paginated_items = store.search(["test"], limit=2)
        assert len(paginated_items) == 2

        offset_items = store.search(["test"], offset=2)
        assert len(offset_items) == 1

        for namespace, key, _ in test_data:
            store.delete(namespace, key)


def test_vector_store_initialization(vector_store) -> None:
    with vector_store() as store:
        assert store.index_config is not None
        assert (
            store.embedder is store.client.engine.embedder
        )  # the original: store.embeddings == fake_embeddings
        assert store.index_config["dims"] == store.embedder.dim
        assert store.index_config["fields"] == [
            "$"
        ]  # the original: text_fields is None (the whole value)

    text_fields = ["content", "title"]
    with vector_store(text_fields=text_fields) as store:
        assert store.index_config is not None
        assert store.index_config["dims"] == store.embedder.dim
        assert store.index_config["fields"] == text_fields

    # The original checks that setup created SQLite's vector tables; here, that a put
    # gives the item its dense and BM25 vectors in the memories collection (they follow
    # the put: see test_store_write_behind.py).
    with vector_store() as store:
        store.put(("test",), "doc", {"text": "hello"})
        store.flush()
        where = Where(must=(Match("layer", "item"),))
        for vector in ("dense", "bm25"):
            count = store.client.records.count("memories", where.and_(HasVector(vector)))
            assert run_apart(count) == 1

    # Added: vectors come from the client's embedder, so a second embedder is refused.
    with pytest.raises(ValueError, match="embed"), vector_store() as store:
        MemHubStore(store.client, index={"embed": lambda texts: [[0.0]] * len(texts)})


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
@pytest.mark.parametrize("conn_type", CONN_TYPES)
def test_vector_insert_with_auto_embedding(
    vector_store, distance_type: str, conn_type: str
) -> None:
    with vector_store(conn_type=conn_type) as store:
        docs = [
            ("doc1", {"text": "short text"}),
            ("doc2", {"text": "longer text document"}),
            ("doc3", {"text": "longest text document here"}),
            ("doc4", {"description": "text in description field"}),
            ("doc5", {"content": "text in content field"}),
            ("doc6", {"body": "text in body field"}),
        ]

        for key, value in docs:
            store.put(("test",), key, value)

        results = store.search(("test",), query="long text")
        assert len(results) > 0

        doc_order = [r.key for r in results]
        assert "doc2" in doc_order
        assert "doc3" in doc_order


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
@pytest.mark.parametrize("conn_type", CONN_TYPES)
def test_vector_update_with_embedding(vector_store, distance_type: str, conn_type: str) -> None:
    with vector_store(conn_type=conn_type) as store:
        store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
        store.put(("test",), "doc2", {"text": "something about dogs"})
        store.put(("test",), "doc3", {"text": "text about birds"})

        results_initial = store.search(("test",), query="Zany Xerxes")
        assert len(results_initial) > 0
        assert results_initial[0].key == "doc1"
        initial_score = results_initial[0].score

        store.put(("test",), "doc1", {"text": "new text about dogs"})

        results_after = store.search(("test",), query="Zany Xerxes")
        after_score = next((r.score for r in results_after if r.key == "doc1"), 0.0)
        assert after_score < initial_score

        results_new = store.search(("test",), query="new text about dogs")
        for r in results_new:
            if r.key == "doc1":
                assert r.score > after_score

        store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
        results_new = store.search(("test",), query="new text about dogs", limit=3)
        assert not any(r.key == "doc4" for r in results_new)


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
def test_vector_search_with_filters(vector_store, distance_type: str) -> None:
    with vector_store() as store:
        docs = [
            ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
            ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
            ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
            ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
        ]
        for key, value in docs:
            store.put(("test",), key, value)

        results = store.search(("test",), query="apple", filter={"color": "red"})
        assert len(results) == 2
        assert results[0].key == "doc1"

        results = store.search(("test",), query="car", filter={"color": "red"})
        assert len(results) > 0
        assert results[0].key == "doc2"

        results = store.search(("test",), query="bbbbluuu", filter={"score": {"$gt": 3.2}})
        assert len(results) == 3
        assert results[0].key == "doc4"
        high_score_keys = [r.key for r in results]
        assert "doc1" in high_score_keys
        assert "doc3" in high_score_keys

        results = store.search(
            ("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"}
        )
        assert len(results) > 0
        assert results[0].key == "doc3"


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
def test_vector_search_pagination(vector_store, distance_type: str) -> None:
    with vector_store() as store:
        for i in range(5):
            store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})

        results_page1 = store.search(("test",), query="test", limit=2)
        results_page2 = store.search(("test",), query="test", limit=2, offset=2)

        assert len(results_page1) == 2
        assert len(results_page2) == 2
        assert results_page1[0].key != results_page2[0].key
        assert results_page1[1].key != results_page2[0].key
        assert results_page1[0].key != results_page2[1].key
        assert results_page1[1].key != results_page2[1].key

        assert results_page1[0].score >= results_page1[1].score
        assert results_page2[0].score >= results_page2[1].score

        all_results = store.search(("test",), query="test", limit=10)
        assert len(all_results) == 5
        assert all_results[0].score >= all_results[2].score


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
def test_vector_search_edge_cases(vector_store, distance_type: str) -> None:
    with vector_store() as store:
        store.put(("test",), "doc1", {"text": "test document"})

        results = store.search(("test",), query="")
        assert len(results) == 1

        results = store.search(("test",), query=None)
        assert len(results) == 1

        long_query = "test " * 100
        results = store.search(("test",), query=long_query)
        assert len(results) == 1

        special_query = "test!@#$%^&*()"
        results = store.search(("test",), query=special_query)
        assert len(results) == 1


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
def test_embed_with_path(vector_store, distance_type: str) -> None:
    with vector_store(text_fields=["key0", "key1", "key3"]) as store:
        # This will have 2 vectors representing it
        doc1 = {
            # Omit key0 - check it doesn't raise an error
            "key1": "xxx",
            "key2": "yyy",
            "key3": "zzz",
        }
        # This will have 3 vectors representing it
        doc2 = {
            "key0": "uuu",
            "key1": "vvv",
            "key2": "www",
            "key3": "xxx",
        }
        store.put(("test",), "doc1", doc1)
        store.put(("test",), "doc2", doc2)

        # doc2.key3 and doc1.key1 both would have the highest score.
        results = store.search(("test",), query="xxx")
        assert len(results) == 2
        assert results[0].key != results[1].key
        assert results[0].score > 0.9
        assert results[1].score > 0.9

        results = store.search(("test",), query="uuu")
        assert len(results) == 2
        assert results[0].key != results[1].key
        assert results[0].key == "doc2"
        assert results[0].score > results[1].score

        results = store.search(("test",), query="zzz")
        assert len(results) == 2
        assert results[0].key != results[1].key
        assert results[0].key == "doc1"
        assert results[0].score > results[1].score

        # Un-indexed
        results = store.search(("test",), query="www")
        assert len(results) == 2
        assert results[0].key != results[1].key
        assert results[0].score < 0.9
        assert results[1].score < 0.9


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
def test_embed_with_path_operation_config(vector_store, distance_type: str) -> None:
    with vector_store(text_fields=["key17"]) as store:
        doc3 = {
            "key0": "aaa",
            "key1": "bbb",
            "key2": "ccc",
            "key3": "ddd",
        }
        doc4 = {
            "key0": "eee",
            "key1": "bbb",  # Same as doc3.key1
            "key2": "fff",
            "key3": "ggg",
        }

        store.put(("test",), "doc3", doc3, index=["key0", "key1"])
        store.put(("test",), "doc4", doc4, index=["key1", "key3"])

        results = store.search(("test",), query="aaa")
        assert len(results) == 2
        assert results[0].key == "doc3"
        assert len(set(r.key for r in results)) == 2
        assert results[0].score > results[1].score

        results = store.search(("test",), query="ggg")
        assert len(results) == 2
        assert results[0].key == "doc4"
        assert results[0].score > results[1].score

        # Both docs have "bbb" indexed, so they should have similar scores
        results = store.search(("test",), query="bbb")
        assert len(results) == 2
        assert results[0].key != results[1].key
        assert abs(results[0].score - results[1].score) < 0.1

        # Unindexed field should have low scores
        results = store.search(("test",), query="ccc")
        assert len(results) == 2
        assert all(r.score < 0.9 for r in results)

        doc5 = {
            "key0": "hhh",
            "key1": "iii",
        }
        store.put(("test",), "doc5", doc5, index=False)
        results = store.search(("test",))
        assert len(results) == 3
        assert any(r.key == "doc5" for r in results)


@pytest.mark.parametrize("query", ["aaa", "bbb", "ccc", "abcd", "poisson"])
@pytest.mark.parametrize("conn_type", CONN_TYPES)
def test_scores(vector_store, query: str, conn_type: str) -> None:
    """The score equals the cosine of the embeddings (clipped to [0, 1], memhub's scale)."""
    with vector_store(text_fields=["key0"], conn_type=conn_type) as store:
        doc = {
            "key0": "aaa",
        }
        store.put(("test",), "doc", doc, index=["key0", "key1"])

        results = store.search((), query=query)

        assert len(results) == 1
        embed = HashEmbedder()
        cosine = sum(
            a * b for a, b in zip(embed.vector(query), embed.vector(doc["key0"]), strict=True)
        )
        assert results[0].score == pytest.approx(max(0.0, cosine), abs=1e-3)


def test_nonnull_migrations() -> None:
    """Original: SQLite's migration statements are non-empty. memhub has no migrations;
    its schema is the payload indexes, so check every key MemHubStore and
    MemHubCheckpointer filter or order on is indexed (else Qdrant scans payloads)."""
    memories = INDEXES["memories"]
    assert {"tenant", "layer", "ns_prefixes", "item"} <= set(memories.keyword)
    assert "expires_at" in memories.datetime
    checkpoints = index_spec("checkpoints")  # registered by the adapter
    assert {"kind", "thread_id", "checkpoint_ns", "checkpoint_id", "run_id"} <= set(
        checkpoints.keyword
    )
    assert "seq" in checkpoints.integer
    assert {"thread_id", "checkpoint_ns", "checkpoint_id"} <= set(
        index_spec("checkpoint_writes").keyword
    )


def test_basic_store_operations(vector_store) -> None:
    with vector_store(text_fields=["key0", "key1", "key3"]) as store:
        uid = uuid.uuid4().hex
        namespace = (uid, "test", "documents")
        item_id = "doc1"
        item_value = {"title": "Test Document", "content": "Hello, World!"}
        results = store.search((uid,))
        assert len(results) == 0

        store.put(namespace, item_id, item_value)
        item = store.get(namespace, item_id)

        assert item is not None
        assert item.namespace == namespace
        assert item.key == item_id
        assert item.value == item_value
        assert item.created_at is not None
        assert item.updated_at is not None

        updated_value = {
            "title": "Updated Test Document",
            "content": "Hello, LangGraph!",
        }
        store.put(namespace, item_id, updated_value)
        updated_item = store.get(namespace, item_id)
        assert updated_item is not None

        assert updated_item.value == updated_value
        assert updated_item.updated_at >= item.updated_at
        assert updated_item.created_at == item.created_at  # added: a re-put keeps created_at

        different_namespace = (uid, "test", "other_documents")
        item_in_different_namespace = store.get(different_namespace, item_id)
        assert item_in_different_namespace is None

        new_item_id = "doc2"
        new_item_value = {"title": "Another Document", "content": "Greetings!"}
        store.put(namespace, new_item_id, new_item_value)

        items = store.search((uid, "test"), limit=10)
        assert len(items) == 2
        assert any(item.key == item_id for item in items)
        assert any(item.key == new_item_id for item in items)

        namespaces = store.list_namespaces(prefix=(uid, "test"))
        assert (uid, "test", "documents") in namespaces

        store.delete(namespace, item_id)
        store.delete(namespace, new_item_id)
        deleted_item = store.get(namespace, item_id)
        assert deleted_item is None

        deleted_item = store.get(namespace, new_item_id)
        assert deleted_item is None

        empty_search_results = store.search((uid, "test"), limit=10)
        assert len(empty_search_results) == 0


def test_list_namespaces_operations(vector_store) -> None:
    with vector_store(text_fields=["key0", "key1", "key3"]) as store:
        test_pref = str(uuid.uuid4())
        test_namespaces = [
            (test_pref, "test", "documents", "public", test_pref),
            (test_pref, "test", "documents", "private", test_pref),
            (test_pref, "test", "images", "public", test_pref),
            (test_pref, "test", "images", "private", test_pref),
            (test_pref, "prod", "documents", "public", test_pref),
            (test_pref, "prod", "documents", "some", "nesting", "public", test_pref),
            (test_pref, "prod", "documents", "private", test_pref),
        ]

        for namespace in test_namespaces:
            store.put(namespace, "dummy", {"content": "dummy"})

        prefix_result = store.list_namespaces(prefix=(test_pref, "test"))
        assert len(prefix_result) == 4
        assert all(ns[1] == "test" for ns in prefix_result)

        specific_prefix_result = store.list_namespaces(prefix=(test_pref, "test", "documents"))
        assert len(specific_prefix_result) == 2
        assert all(ns[1:3] == ("test", "documents") for ns in specific_prefix_result)

        suffix_result = store.list_namespaces(suffix=("public", test_pref))
        assert len(suffix_result) == 4
        assert all(ns[-2] == "public" for ns in suffix_result)

        prefix_suffix_result = store.list_namespaces(
            prefix=(test_pref, "test"), suffix=("public", test_pref)
        )
        assert len(prefix_suffix_result) == 2
        assert all(ns[1] == "test" and ns[-2] == "public" for ns in prefix_suffix_result)

        wildcard_prefix_result = store.list_namespaces(prefix=(test_pref, "*", "documents"))
        assert len(wildcard_prefix_result) == 5
        assert all(ns[2] == "documents" for ns in wildcard_prefix_result)

        wildcard_suffix_result = store.list_namespaces(suffix=("*", "public", test_pref))
        assert len(wildcard_suffix_result) == 4
        assert all(ns[-2] == "public" for ns in wildcard_suffix_result)

        wildcard_single = store.list_namespaces(suffix=("some", "*", "public", test_pref))
        assert len(wildcard_single) == 1
        assert wildcard_single[0] == (
            test_pref,
            "prod",
            "documents",
            "some",
            "nesting",
            "public",
            test_pref,
        )

        max_depth_result = store.list_namespaces(max_depth=3)
        assert all(len(ns) <= 3 for ns in max_depth_result)

        max_depth_result = store.list_namespaces(max_depth=4, prefix=(test_pref, "*", "documents"))
        assert len(set(res for res in max_depth_result)) == len(max_depth_result) == 5

        limit_result = store.list_namespaces(prefix=(test_pref,), limit=3)
        assert len(limit_result) == 3

        offset_result = store.list_namespaces(prefix=(test_pref,), offset=3)
        assert len(offset_result) == len(test_namespaces) - 3

        empty_prefix_result = store.list_namespaces(prefix=(test_pref,))
        assert len(empty_prefix_result) == len(test_namespaces)
        assert set(empty_prefix_result) == set(test_namespaces)

        for namespace in test_namespaces:
            store.delete(namespace, "dummy")


def test_search_items(vector_store) -> None:
    base = "test_search_items"
    test_namespaces = [
        (base, "documents", "user1"),
        (base, "documents", "user2"),
        (base, "reports", "department1"),
        (base, "reports", "department2"),
    ]
    test_items = [
        {"title": "Doc 1", "author": "John Doe", "tags": ["important"]},
        {"title": "Doc 2", "author": "Jane Smith", "tags": ["draft"]},
        {"title": "Report A", "author": "John Doe", "tags": ["final"]},
        {"title": "Report B", "author": "Alice Johnson", "tags": ["draft"]},
    ]

    with vector_store(text_fields=["key0", "key1", "key3"]) as store:
        for ns, item in zip(test_namespaces, test_items, strict=False):
            key = f"item_{ns[-1]}"
            store.put(ns, key, item)

        docs = store.search((base, "documents"))
        assert len(docs) == 2
        assert all(item.namespace[1] == "documents" for item in docs)

        reports = store.search((base, "reports"))
        assert len(reports) == 2
        assert all(item.namespace[1] == "reports" for item in reports)

        first_page = store.search((base,), limit=2, offset=0)
        second_page = store.search((base,), limit=2, offset=2)
        assert len(first_page) == 2
        assert len(second_page) == 2
        keys_page1 = {item.key for item in first_page}
        keys_page2 = {item.key for item in second_page}
        assert keys_page1.isdisjoint(keys_page2)
        all_items = store.search((base,))
        assert len(all_items) == 4

        john_items = store.search((base,), filter={"author": "John Doe"})
        assert len(john_items) == 2
        assert all(item.value["author"] == "John Doe" for item in john_items)

        draft_items = store.search((base,), filter={"tags": ["draft"]})
        assert len(draft_items) == 2
        assert all("draft" in item.value["tags"] for item in draft_items)

        for ns in test_namespaces:
            key = f"item_{ns[-1]}"
            store.delete(ns, key)


def test_sql_injection_vulnerability(store: MemHubStore) -> None:
    """Original: a filter key crafted as SQL raises ``ValueError("Invalid filter key")``.
    MemHubStore builds no query language from filter keys (they are looked up in the
    decoded value), so the same key is just a key no item has: nothing leaks."""
    store.put(("docs",), "public", {"access": "public", "data": "public info"})
    store.put(("docs",), "private", {"access": "private", "data": "secret", "password": "123"})

    normal = store.search(("docs",), filter={"access": "public"})
    assert len(normal) == 1
    assert normal[0].value["access"] == "public"

    malicious_key = "access') = 'public' OR '1'='1' OR json_extract(value, '$."
    assert store.search(("docs",), filter={malicious_key: "dummy"}) == []


def test_sql_injection_filter_values(store: MemHubStore) -> None:
    store.put(("docs",), "doc1", {"access": "public", "title": "Public Document"})
    store.put(("docs",), "doc2", {"access": "private", "title": "Private Document"})
    store.put(("docs",), "doc3", {"access": "secret", "title": "Secret Document"})

    malicious_value = "public' OR '1'='1"
    results = store.search(("docs",), filter={"access": malicious_value})
    assert len(results) == 0, "SQL injection via string value should be blocked"

    malicious_value = "public'; --"
    results = store.search(("docs",), filter={"access": malicious_value})
    assert len(results) == 0, "SQL comment injection should be blocked"

    malicious_value = "public' UNION SELECT * FROM store --"
    results = store.search(("docs",), filter={"access": malicious_value})
    assert len(results) == 0, "UNION injection should be blocked"

    malicious_value = "public\x00' OR '1'='1"
    results = store.search(("docs",), filter={"access": malicious_value})
    assert len(results) == 0, "Parameterized queries treat injection attempts as literal strings"

    malicious_value = "''''"
    results = store.search(("docs",), filter={"access": malicious_value})
    assert len(results) == 0, "Multiple quotes should be handled safely"

    store.put(("docs",), "doc4", {"title": "O'Brien's Document", "access": "public"})
    results = store.search(("docs",), filter={"title": "O'Brien's Document"})
    assert len(results) == 1, "Legitimate single quotes should work"
    assert results[0].value["title"] == "O'Brien's Document"

    malicious_value = "public' OR 'א'='א"
    results = store.search(("docs",), filter={"access": malicious_value})
    assert len(results) == 0, "Unicode-based injection should be blocked"


def test_numeric_filter_safety(store: MemHubStore) -> None:
    store.put(("items",), "item1", {"price": 10, "quantity": 5})
    store.put(("items",), "item2", {"price": 20, "quantity": 3})
    store.put(("items",), "item3", {"price": 30, "quantity": 1})

    results = store.search(("items",), filter={"price": {"$gt": 15}})
    assert len(results) == 2
    assert all(r.value["price"] > 15 for r in results)

    results = store.search(("items",), filter={"price": {"$lt": float("inf")}})
    assert len(results) == 3, "All finite values should be less than infinity"

    results = store.search(("items",), filter={"price": {"$gt": float("-inf")}})
    assert len(results) == 3, "All finite values should be greater than negative infinity"

    try:
        results = store.search(("items",), filter={"price": {"$eq": float("nan")}})
        assert len(results) == 0
    except Exception as e:
        pytest.fail(f"NaN handling should not raise exception: {e}")

    results = store.search(("items",), filter={"price": {"$lt": 10**100}})
    assert len(results) == 3, "Very large numbers should be handled safely"

    store.put(("items",), "item4", {"price": -10, "quantity": 0})
    results = store.search(("items",), filter={"price": {"$lt": 0}})
    assert len(results) == 1
    assert results[0].key == "item4"


def test_boolean_filter_safety(store: MemHubStore) -> None:
    store.put(("flags",), "flag1", {"active": True, "name": "Feature A"})
    store.put(("flags",), "flag2", {"active": False, "name": "Feature B"})
    store.put(("flags",), "flag3", {"active": True, "name": "Feature C"})

    results = store.search(("flags",), filter={"active": True})
    assert len(results) == 2
    assert all(r.value["active"] is True for r in results)

    results = store.search(("flags",), filter={"active": False})
    assert len(results) == 1
    assert results[0].value["active"] is False


def test_filter_keys_with_hyphens_and_digits(store: MemHubStore) -> None:
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "nested"}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})

    results = store.search(("docs",), filter={"access-level": "public"})
    assert [r.key for r in results] == ["hyphen"]

    results = store.search(("docs",), filter={"user.access-level": "nested"})
    assert [r.key for r in results] == ["hyphen"]

    results = store.search(("docs",), filter={"123abc": "ok"})
    assert [r.key for r in results] == ["digit"]

    results = store.search(("docs",), filter={"user.123abc": "ok2"})
    assert [r.key for r in results] == ["digit"]


@pytest.mark.parametrize("distance_type", VECTOR_TYPES)
def test_non_ascii(vector_store, distance_type: str) -> None:
    with vector_store() as store:
        store.put(("user_123", "memories"), "1", {"text": "这是中文"})  # Chinese
        store.put(("user_123", "memories"), "2", {"text": "これは日本語です"})  # Japanese
        store.put(("user_123", "memories"), "3", {"text": "이건 한국어야"})  # Korean
        store.put(("user_123", "memories"), "4", {"text": "Это русский"})  # Russian
        store.put(("user_123", "memories"), "5", {"text": "यह रूसी है"})  # Hindi

        result1 = store.search(("user_123", "memories"), query="这是中文")
        result2 = store.search(("user_123", "memories"), query="これは日本語です")
        result3 = store.search(("user_123", "memories"), query="이건 한국어야")
        result4 = store.search(("user_123", "memories"), query="Это русский")
        result5 = store.search(("user_123", "memories"), query="यह रूसी है")

        assert result1[0].key == "1"
        assert result2[0].key == "2"
        assert result3[0].key == "3"
        assert result4[0].key == "4"
        assert result5[0].key == "5"


def test_escape_glob_literal() -> None:
    """Original: labels are escaped for SQLite GLOB. MemHubStore matches namespace
    prefixes as exact strings on an indexed keyword list (labels cannot hold the "."
    that joins them), so there is nothing to escape: labels reach Qdrant verbatim."""
    for label in ("users_alice", "user_1", "100%", "a*b", "a?b", "a[b"):
        assert items_where("local", (label,)).must[-1] == Match("ns_prefixes", label)
    assert items_where("local", ("uid", "a*b")).must[-1] == Match("ns_prefixes", "uid.a*b")


def test_namespace_match_pattern() -> None:
    """Original: the regexes SQLite uses for prefix/suffix matching. Here the same
    cases against ``does_match``, which list_namespaces applies label by label."""

    def match(kind: str, path: tuple[str, ...], ns: tuple[str, ...]) -> bool:
        return does_match(MatchCondition(match_type=kind, path=path), ns)

    assert match("prefix", ("foo",), ("foo",))
    assert match("prefix", ("foo",), ("foo", "bar"))
    assert not match("prefix", ("foo",), ("foobar",))
    assert match("prefix", ("uid", "*", "alice"), ("uid", "users", "alice"))
    assert match("prefix", ("uid", "*", "alice"), ("uid", "users", "alice", "x"))
    assert not match("prefix", ("uid", "*", "alice"), ("uid", "a", "b", "alice"))
    assert match("suffix", ("alice",), ("users", "alice"))
    assert not match("suffix", ("alice",), ("users", "malice"))
    assert not match("suffix", ("alice",), ("users", "alice\n"))


def test_search_namespace_segment_boundary(store: MemHubStore) -> None:
    for namespace in [
        ("foo",),
        ("foo", "child"),
        ("foo", "child", "deep"),
        ("foobar",),
        ("foobar", "baz"),
        ("foo2",),
    ]:
        store.put(namespace, "k", {"v": 1})

    def _namespaces(prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {item.namespace for item in store.search(prefix, limit=100)}

    assert _namespaces(("foo",)) == {
        ("foo",),
        ("foo", "child"),
        ("foo", "child", "deep"),
    }
    assert _namespaces(("foobar",)) == {("foobar",), ("foobar", "baz")}
    assert _namespaces(("foo2",)) == {("foo2",)}
    assert _namespaces(("fo",)) == set()


def test_search_namespace_wildcard_chars_are_literal(store: MemHubStore) -> None:
    for namespace in [
        ("user_1",),
        ("user_1", "child"),
        ("userX1",),
        ("a%b",),
        ("axxb",),
        ("star*",),
        ("starX",),
    ]:
        store.put(namespace, "k", {"v": 1})

    def _namespaces(prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {item.namespace for item in store.search(prefix, limit=100)}

    assert _namespaces(("user_1",)) == {("user_1",), ("user_1", "child")}
    assert _namespaces(("a%b",)) == {("a%b",)}
    assert _namespaces(("star*",)) == {("star*",)}


def test_search_namespace_is_case_sensitive(store: MemHubStore) -> None:
    store.put(("Foo",), "k", {"v": "upper"})
    store.put(("foo",), "k", {"v": "lower"})

    assert {item.namespace for item in store.search(("foo",), limit=100)} == {("foo",)}
    assert {item.namespace for item in store.search(("Foo",), limit=100)} == {("Foo",)}


def test_list_namespaces_segment_boundary(store: MemHubStore) -> None:
    for namespace in [
        ("foo",),
        ("foo", "child"),
        ("foobar",),
        ("foobar", "baz"),
        ("uid", "users", "alice"),
        ("uid", "users", "malice"),
        ("uid", "a", "b", "alice"),
    ]:
        store.put(namespace, "k", {"v": 1})

    assert set(store.list_namespaces(prefix=["foo"], limit=100)) == {
        ("foo",),
        ("foo", "child"),
    }
    assert set(store.list_namespaces(suffix=["alice"], limit=100)) == {
        ("uid", "users", "alice"),
        ("uid", "a", "b", "alice"),
    }
    assert set(store.list_namespaces(prefix=["uid", "*", "alice"], limit=100)) == {
        ("uid", "users", "alice"),
    }
    assert set(store.list_namespaces(prefix=["uid"], limit=100)) == {
        ("uid", "users", "alice"),
        ("uid", "users", "malice"),
        ("uid", "a", "b", "alice"),
    }


def test_search_empty_prefix_is_unconstrained(store: MemHubStore) -> None:
    for namespace in [("a",), ("b", "c"), ("d", "e", "f")]:
        store.put(namespace, "k", {"v": 1})

    assert {item.namespace for item in store.search((), limit=100)} == {
        ("a",),
        ("b", "c"),
        ("d", "e", "f"),
    }


def test_namespace_labels_with_trailing_newline(store: MemHubStore) -> None:
    store.put(("users", "alice"), "k", {"v": 1})
    store.put(("users", "alice\n"), "k", {"v": 2})

    assert set(store.list_namespaces(suffix=["alice"], limit=100)) == {
        ("users", "alice"),
    }
    assert set(store.list_namespaces(prefix=["users", "alice"], limit=100)) == {
        ("users", "alice"),
    }


def test_list_namespaces_prefix_uses_indexable_condition() -> None:
    """Original: plain prefixes use SQLite's indexable GLOB, not the Python match
    function. Here: the part of a prefix Qdrant can answer from the ``ns_prefixes``
    keyword index is pushed down; only wildcards and suffixes are matched in Python."""

    def pushed(match_type: str, path: tuple[str, ...]) -> tuple[str, ...]:
        return literal_prefix((MatchCondition(match_type=match_type, path=path),))

    assert pushed("prefix", ("uid", "users")) == ("uid", "users")
    assert items_where("local", pushed("prefix", ("uid", "users"))).must[-1] == Match(
        "ns_prefixes", "uid.users"
    )
    # A label that merely contains "*" is not the wildcard.
    assert pushed("prefix", ("star*",)) == ("star*",)
    # Wildcards and suffixes: the literal head only (nothing for a suffix).
    assert pushed("prefix", ("uid", "*", "alice")) == ("uid",)
    assert pushed("suffix", ("alice",)) == ()
    assert "ns_prefixes" in INDEXES["memories"].keyword


def test_list_namespaces_metacharacter_labels(store: MemHubStore) -> None:
    pairs = [
        ("star*", "starX"),
        ("q?m", "qXm"),
        ("br[ack]et", "brXacXket"),
        ("user_1", "userX1"),
        ("a%b", "axxb"),
        ("plus+", "plusX"),
    ]
    for label, decoy in pairs:
        store.put((label,), "k", {"v": 1})
        store.put((decoy,), "k", {"v": 1})
        store.put((label, "child"), "k", {"v": 1})

    for label, decoy in pairs:
        found = set(store.list_namespaces(prefix=[label], limit=100))
        assert found == {(label,), (label, "child")}
        assert (decoy,) not in found
        assert set(store.list_namespaces(prefix=[label, "child"], limit=100)) == {
            (label, "child"),
        }


class _FixedVectorEmbedder:
    """The original's ``_FixedVectorEmbeddings`` as a memhub ``Embedder``."""

    name = "test/fixed-vectors"
    dim = 3
    similarity_floor = 0.0
    vectors = {
        "a": [1.0, 0.0, 0.0],
        "b": [2.0, 0.1, 0.0],
        "c": [0.0, 0.0, 1.0],
    }

    def _embed_one(self, text: str) -> list[float]:
        key = json.loads(text)["text"] if text.startswith("{") else text
        vector = self.vectors[key]
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector]

    async def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return [self._embed_one(t) for t in texts]

    async def embed_query(self, text: str) -> list[float]:
        return self._embed_one(text)


@pytest.mark.parametrize("distance_type", ["cosine"])
def test_vector_search_ranks_closest_first(vector_store, distance_type: str) -> None:
    """Original: for cosine, l2 and inner product, the closest item ranks first with the
    distance's score. memhub's collections are cosine only (l2 and inner_product are
    dropped: no such configuration exists); the cosine case is as in the original."""
    with vector_store(embed=_FixedVectorEmbedder()) as store:
        for key in ("a", "b", "c"):
            store.put(("docs",), key, {"text": key})

        results = store.search(("docs",), query="a")

        assert [r.key for r in results] == ["a", "b", "c"]
        assert results[0].score == pytest.approx(1.0)
        assert results[1].score == pytest.approx(2.0 / math.sqrt(4.01), abs=1e-3)
        assert results[2].score == pytest.approx(0.0)
