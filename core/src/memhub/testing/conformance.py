"""The conformance suite every ``MemoryStore`` backend must pass.

Subclass ``MemoryStoreConformance`` in a test module and provide a ``store`` fixture
that yields an opened store (``vector_size`` dimensions). Persistent backends also
implement ``reopen``; others set ``persistent = False``.

Example:
    >>> class TestMyStore(MemoryStoreConformance):
    ...     @pytest.fixture
    ...     async def store(self, tmp_path):
    ...         store = MyStore(tmp_path)
    ...         await store.open(vector_size=self.vector_size)
    ...         yield store
    ...         await store.close()
    ...
    ...     def reopen(self, store):
    ...         return MyStore(store.path)
"""

from __future__ import annotations

import math
import random
import uuid
from typing import Any, ClassVar

import pytest

from memhub.embed.bm25 import Bm25Encoder
from memhub.errors import EmbedderMismatchError
from memhub.store.base import (
    BM25,
    DENSE,
    Collection,
    DateRange,
    HasVector,
    IsEmpty,
    Match,
    MatchAny,
    MemoryStore,
    SparseVector,
    StoredPoint,
    Where,
)

__all__ = ["MemoryStoreConformance"]

DIM = 8
_bm25 = Bm25Encoder()


def uid() -> str:
    return str(uuid.uuid4())


def vec(*head: float) -> list[float]:
    """A ``DIM``-d vector starting with ``head``, zero-padded."""
    return [*map(float, head), *([0.0] * (DIM - len(head)))]


def unit(v: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def as_dict(sparse: SparseVector | None) -> dict[int, float]:
    assert sparse is not None
    return dict(zip(sparse.indices, sparse.values, strict=True))


async def scroll_all(
    store: MemoryStore, collection: Collection, where: Where | None = None, limit: int = 100
) -> list[StoredPoint]:
    out: list[StoredPoint] = []
    offset = None
    for _ in range(10_000):
        page, offset = await store.scroll(collection, where, limit=limit, offset=offset)
        assert len(page) <= limit
        out.extend(page)
        if offset is None:
            return out
    raise AssertionError("scroll never ended")


# A small corpus for the filter tests: name -> (payload, dense, sparse text).
_FILTER_DATA: dict[str, tuple[dict[str, Any], list[float] | None, str | None]] = {
    "a": (
        {
            "user_id": "u1",
            "layer": "fact",
            "tags": ["x", "y"],
            "agent_id": "bot",
            "rev": 1,
            "pinned": True,
            "created_at": "2024-01-01T00:00:00Z",
        },
        vec(1),
        "alpha",
    ),
    "b": (
        {
            "user_id": "u1",
            "layer": "profile",
            "tags": [],
            "agent_id": None,
            "rev": 2,
            "pinned": False,
            "created_at": "2024-02-01T00:00:00Z",
        },
        vec(0, 1),
        None,
    ),
    "c": (
        {
            "user_id": "u2",
            "layer": "fact",
            "tags": ["y"],
            "rev": 3,
            "created_at": "2024-03-01T00:00:00Z",
        },
        None,
        "gamma",
    ),
    "d": (
        {"user_id": "u3", "layer": "raw", "rev": 4, "created_at": "2024-04-01T12:00:00Z"},
        vec(0, 0, 1),
        None,
    ),
}

_FILTER_CASES: list[tuple[str, Where | None, str]] = [
    ("none", None, "abcd"),
    ("empty-where", Where(), "abcd"),
    ("match-keyword", Where(must=(Match("user_id", "u1"),)), "ab"),
    ("match-list-element", Where(must=(Match("tags", "y"),)), "ac"),
    ("match-int", Where(must=(Match("rev", 2),)), "b"),
    ("match-bool-true", Where(must=(Match("pinned", True),)), "a"),
    ("match-bool-false", Where(must=(Match("pinned", False),)), "b"),
    ("match-any", Where(must=(MatchAny("layer", ("fact", "raw")),)), "acd"),
    # MatchAny on a list field no index covers, the way a derivation lookup reads ``evidence``
    ("match-any-list-element", Where(must=(MatchAny("tags", ("x", "z")),)), "a"),
    ("match-any-list-elements", Where(must=(MatchAny("tags", ("y", "z")),)), "ac"),
    ("match-any-list-none", Where(must=(MatchAny("tags", ("z",)),)), ""),
    (
        "match-any-list-and-keyword",
        Where(must=(Match("user_id", "u1"), MatchAny("tags", ("x", "y")))),
        "a",
    ),
    (
        "match-any-list-and-layer",
        Where(must=(Match("layer", "fact"), MatchAny("tags", ("x", "y")))),
        "ac",
    ),
    ("must-not-match-any-list", Where(must_not=(MatchAny("tags", ("y",)),)), "bd"),
    ("is-empty-null-or-missing", Where(must=(IsEmpty("agent_id"),)), "bcd"),
    ("is-empty-empty-list", Where(must=(IsEmpty("tags"),)), "bd"),
    ("should", Where(should=(Match("layer", "profile"), Match("user_id", "u2"))), "bc"),
    (
        "nested-should",
        Where(
            must=(Match("layer", "fact"), Where(should=(Match("user_id", "u2"), Match("rev", 1))))
        ),
        "ac",
    ),
    ("must-not", Where(must_not=(Match("user_id", "u1"),)), "cd"),
    (
        "must-not-nested",
        Where(must_not=(Where(must=(Match("user_id", "u1"), Match("layer", "fact"))),)),
        "bcd",
    ),
    (
        "date-range",
        Where(
            must=(DateRange("created_at", gte="2024-02-01T00:00:00Z", lte="2024-03-31T23:59:59Z"),)
        ),
        "bc",
    ),
    ("date-gte", Where(must=(DateRange("created_at", gte="2024-03-01T00:00:00Z"),)), "cd"),
    ("date-lte", Where(must=(DateRange("created_at", lte="2024-01-31T00:00:00Z"),)), "a"),
    ("has-dense", Where(must=(HasVector(DENSE),)), "abd"),
    ("has-bm25", Where(must=(HasVector(BM25),)), "ac"),
    ("lacks-dense", Where(must_not=(HasVector(DENSE),)), "c"),
    ("combined", Where(must=(Match("layer", "fact"),), must_not=(IsEmpty("agent_id"),)), "a"),
]


class MemoryStoreConformance:
    """Behaviour the engine relies on, checked the same way on every backend."""

    vector_size: ClassVar[int] = DIM
    persistent: ClassVar[bool] = True
    """Whether data outlives ``close()``; set ``False`` to skip the reopen tests."""

    @pytest.fixture
    async def store(self) -> MemoryStore:
        raise NotImplementedError("subclasses provide a `store` fixture yielding an opened store")

    def reopen(self, store: MemoryStore) -> MemoryStore:
        """A new, unopened store over the same data as ``store`` (persistent backends)."""
        raise NotImplementedError

    # -- writes and reads ------------------------------------------------------------

    async def test_upsert_retrieve_roundtrip(self, store: MemoryStore) -> None:
        payload = {
            "content": "数据库选型：PostgreSQL 16",
            "user_id": "u1",
            "rev": 3,
            "pinned": True,
            "tags": ["x", "y"],
            "nested": {"k": [1, 2], "s": "v"},
            "ratio": 0.5,
            "none": None,
        }
        sparse = _bm25.document("we chose PostgreSQL 16 as the main database")
        a = StoredPoint(uid(), payload, vec(3, 4), sparse)
        b = StoredPoint(uid(), {"content": "no vectors"})
        await store.upsert("memories", [a, b])

        got = {
            p.id: p
            for p in await store.retrieve("memories", [a.id, b.id, uid()], with_vectors=True)
        }
        assert set(got) == {a.id, b.id}
        assert got[a.id].payload == payload
        assert got[a.id].dense == pytest.approx(
            unit(vec(3, 4)), abs=1e-5
        )  # cosine stores unit vectors
        assert as_dict(got[a.id].sparse) == pytest.approx(as_dict(sparse))
        assert got[b.id].payload == {"content": "no vectors"}
        assert got[b.id].dense is None and got[b.id].sparse is None

        plain = await store.retrieve("memories", [a.id])
        assert [(p.id, p.payload, p.dense, p.sparse) for p in plain] == [
            (a.id, payload, None, None)
        ]
        ids_only = await store.retrieve("memories", [a.id, b.id, uid()], with_payload=False)
        assert {(p.id, len(p.payload)) for p in ids_only} == {(a.id, 0), (b.id, 0)}
        assert await store.retrieve("memories", []) == []

    async def test_upsert_replaces_the_whole_point(self, store: MemoryStore) -> None:
        pid = uid()
        await store.upsert(
            "memories", [StoredPoint(pid, {"x": 1, "y": 2}, vec(1), _bm25.document("one"))]
        )
        await store.upsert("memories", [StoredPoint(pid, {"x": 3})])
        [point] = await store.retrieve("memories", [pid], with_vectors=True)
        assert point.payload == {"x": 3}
        assert point.dense is None and point.sparse is None
        assert await store.count("memories") == 1

    async def test_upsert_of_nothing_is_a_no_op(self, store: MemoryStore) -> None:
        await store.upsert("memories", [])
        await store.upsert("memories", [], only_if=Where(must=(Match("rev", 0),)))
        assert await store.count("memories") == 0

    async def test_conditional_upsert_applies_only_when_the_filter_matches(
        self, store: MemoryStore
    ) -> None:
        pid, other = uid(), uid()
        await store.upsert(
            "memories",
            [StoredPoint(pid, {"rev": 1, "v": "one"}, vec(1)), StoredPoint(other, {"rev": 5})],
        )

        stale = StoredPoint(pid, {"rev": 2, "v": "stale"}, vec(0, 1))
        await store.upsert("memories", [stale], only_if=Where(must=(Match("rev", 0),)))
        [point] = await store.retrieve("memories", [pid], with_vectors=True)
        assert point.payload == {"rev": 1, "v": "one"}
        assert point.dense == pytest.approx(vec(1))

        fresh = StoredPoint(pid, {"rev": 2, "v": "two"}, vec(0, 1))
        new = StoredPoint(uid(), {"rev": 1, "v": "new"})
        await store.upsert(
            "memories",
            [fresh, new, StoredPoint(other, {"rev": 6})],
            only_if=Where(must=(Match("rev", 1),)),
        )
        got = {
            p.id: p
            for p in await store.retrieve("memories", [pid, new.id, other], with_vectors=True)
        }
        assert got[pid].payload == {"rev": 2, "v": "two"}
        assert got[pid].dense == pytest.approx(vec(0, 1))
        assert got[new.id].payload == {"rev": 1, "v": "new"}  # new points are inserted
        assert got[other].payload == {"rev": 5}  # existing, not matching: untouched

    async def test_a_checked_upsert_sees_the_existing_points_and_can_refuse(
        self, store: MemoryStore
    ) -> None:
        mine, theirs, new = uid(), uid(), uid()
        await store.upsert(
            "meta", [StoredPoint(mine, {"owner": "a"}), StoredPoint(theirs, {"owner": "b"})]
        )
        seen: list[list[StoredPoint]] = []

        def only_a(existing: list[StoredPoint]) -> None:
            seen.append(existing)
            if any(p.payload["owner"] != "a" for p in existing):
                raise PermissionError("not yours")

        with pytest.raises(PermissionError):
            await store.upsert(
                "meta",
                [StoredPoint(new, {"owner": "a"}), StoredPoint(theirs, {"owner": "a"})],
                check=only_a,
            )
        assert [p.id for p in seen[0]] == [theirs]  # only the points that exist
        got = {p.id: p.payload for p in await store.retrieve("meta", [new, theirs])}
        assert got == {theirs: {"owner": "b"}}  # refused: nothing written, not even the new one
        await store.upsert("meta", [StoredPoint(mine, {"owner": "a", "v": 2})], check=only_a)
        assert (await store.retrieve("meta", [mine]))[0].payload == {"owner": "a", "v": 2}

    async def test_replace_payload_keeps_the_vectors_and_honours_the_condition(
        self, store: MemoryStore
    ) -> None:
        pid, other = uid(), uid()
        sparse = _bm25.document("postgres database")
        await store.upsert(
            "memories",
            [StoredPoint(pid, {"rev": 1, "v": "one", "old": True}, vec(1), sparse)],
        )

        await store.replace_payload(
            "memories", pid, {"rev": 9}, only_if=Where(must=(Match("rev", 0),))
        )
        [point] = await store.retrieve("memories", [pid])
        assert point.payload == {"rev": 1, "v": "one", "old": True}  # condition not met

        await store.replace_payload(
            "memories", pid, {"rev": 2, "v": "two"}, only_if=Where(must=(Match("rev", 1),))
        )
        [point] = await store.retrieve("memories", [pid], with_vectors=True)
        assert point.payload == {"rev": 2, "v": "two"}  # replaced whole, not merged
        assert point.dense == pytest.approx(vec(1))
        assert as_dict(point.sparse) == pytest.approx(as_dict(sparse))
        hits = await store.hybrid_query(
            vec(1), sparse, Where(must=(Match("v", "two"),)), limit=5, prefetch_limit=5, rrf_k=2
        )
        assert [h.point.id for h in hits] == [pid]  # still found by both vectors

        await store.replace_payload("memories", other, {"rev": 1})  # missing: stays missing
        assert await store.retrieve("memories", [other]) == []
        assert await store.count("memories", Where(must=(Match("v", "two"),))) == 1

    async def test_delete(self, store: MemoryStore) -> None:
        ids = [uid() for _ in range(3)]
        await store.upsert(
            "memories", [StoredPoint(i, {"n": n}, vec(1, n)) for n, i in enumerate(ids)]
        )
        await store.delete("memories", [ids[0], uid()])
        await store.delete("memories", [])
        assert {p.id for p in await store.retrieve("memories", ids)} == set(ids[1:])
        assert await store.count("memories") == 2
        assert ids[0] not in {h.point.id for h in await store.dense_query(vec(1), None, limit=10)}

    async def test_delete_vectors_keeps_the_payload(self, store: MemoryStore) -> None:
        a, b = uid(), uid()
        text = "sealed memory about postgres"
        await store.upsert(
            "memories",
            [StoredPoint(i, {"who": i}, vec(1, 1), _bm25.document(text)) for i in (a, b)],
        )
        await store.delete_vectors([a])
        await store.delete_vectors([])

        got = {p.id: p for p in await store.retrieve("memories", [a, b], with_vectors=True)}
        assert got[a].payload == {"who": a}
        assert got[a].dense is None and got[a].sparse is None
        assert got[b].dense is not None and got[b].sparse is not None
        assert await store.count("memories") == 2
        assert await store.count("memories", Where(must=(HasVector(DENSE),))) == 1
        assert await store.count("memories", Where(must=(HasVector(BM25),))) == 1
        assert await store.count("memories", Where(must_not=(HasVector(DENSE),))) == 1
        assert [h.point.id for h in await store.dense_query(vec(1, 1), None, limit=10)] == [b]
        hits = await store.hybrid_query(
            vec(1, 1), _bm25.query("postgres"), None, limit=10, prefetch_limit=10, rrf_k=2
        )
        assert [h.point.id for h in hits] == [b]

    # -- scroll and count ------------------------------------------------------------

    @pytest.mark.parametrize("collection", ["events", "memories"])
    async def test_scroll_pages_through_everything_once(
        self, store: MemoryStore, collection: Collection
    ) -> None:
        ids = [uid() for _ in range(260)]
        await store.upsert(
            collection,
            [
                StoredPoint(i, {"n": n, "kind": "even" if n % 2 == 0 else "odd"})
                for n, i in enumerate(ids)
            ],
        )

        seen = [p.id for p in await scroll_all(store, collection, limit=100)]
        assert len(seen) == len(set(seen)) == 260
        assert set(seen) == set(ids)

        even = await scroll_all(store, collection, Where(must=(Match("kind", "even"),)), limit=37)
        assert sorted(p.payload["n"] for p in even) == list(range(0, 260, 2))

        page, offset = await store.scroll(collection, limit=100)
        assert len(page) == 100 and offset is not None and offset not in {p.id for p in page}

    async def test_scroll_with_vectors_reads_them_and_without_does_not(
        self, store: MemoryStore
    ) -> None:
        a, b = uid(), uid()
        await store.upsert(
            "memories",
            [
                StoredPoint(a, {"who": "a"}, vec(1, 0), _bm25.document("postgres backup")),
                StoredPoint(b, {"who": "b"}),
            ],
        )
        page, _ = await store.scroll("memories", limit=10, with_vectors=True)
        got = {p.id: p for p in page}
        assert got[a].payload == {"who": "a"}
        assert got[a].dense == pytest.approx(vec(1, 0), abs=1e-6)
        assert as_dict(got[a].sparse) == pytest.approx(as_dict(_bm25.document("postgres backup")))
        assert got[b].dense is None and got[b].sparse is None
        plain, _ = await store.scroll("memories", limit=10)
        assert {p.id for p in plain} == {a, b}
        assert all(p.dense is None and p.sparse is None for p in plain)

    async def test_a_prefetch_changes_nothing_a_read_returns(self, store: MemoryStore) -> None:
        ids = [uid() for _ in range(40)]
        await store.upsert(
            "memories",
            [
                StoredPoint(i, {"n": n}, vec(1, n), _bm25.document(f"note {n}"))
                for n, i in enumerate(ids)
            ],
        )
        await store.upsert("events", [StoredPoint(uid(), {"atom_id": i}) for i in ids[:7]])

        def seen(points: list[StoredPoint]) -> list[tuple[Any, ...]]:
            return sorted(
                (p.id, p.payload, list(p.dense or ()), p.sparse and as_dict(p.sparse))
                for p in points
            )

        before = seen(await store.retrieve("memories", ids, with_vectors=True))
        events = seen(await scroll_all(store, "events"))
        await store.prefetch("meta")  # a collection nothing was written to
        for vectors in (False, True):
            await store.prefetch("memories", vectors=vectors)
            await store.prefetch("events", vectors=vectors)
            page, _ = await store.scroll("memories", limit=100, with_vectors=True)
            assert seen(page) == before
            assert seen(await scroll_all(store, "events")) == events
        assert await store.count("memories", Where(must=(Match("n", 3),))) == 1

    async def test_scroll_order_by_created_at(self, store: MemoryStore) -> None:
        stamps = [f"2024-01-{day:02d}T08:00:00Z" for day in range(1, 13)]
        shuffled = random.Random(7).sample(stamps, len(stamps))
        await store.upsert(
            "memories",
            [
                StoredPoint(uid(), {"created_at": s, "user_id": "u1" if int(s[8:10]) % 3 else "u2"})
                for s in shuffled
            ],
        )

        asc, nxt = await store.scroll("memories", limit=100, order_by="created_at")
        assert [p.payload["created_at"] for p in asc] == stamps and nxt is None
        desc, nxt = await store.scroll(
            "memories", limit=100, order_by="created_at", descending=True
        )
        assert [p.payload["created_at"] for p in desc] == stamps[::-1] and nxt is None

        newest, _ = await store.scroll(
            "memories",
            Where(must=(Match("user_id", "u1"),)),
            limit=3,
            order_by="created_at",
            descending=True,
        )
        assert [p.payload["created_at"][8:10] for p in newest] == ["11", "10", "08"]

    @pytest.fixture
    async def filter_data(self, store: MemoryStore) -> dict[str, str]:
        ids = {name: uid() for name in _FILTER_DATA}
        await store.upsert(
            "memories",
            [
                StoredPoint(
                    ids[name],
                    {**payload, "name": name},
                    dense,
                    _bm25.document(text) if text else None,
                )
                for name, (payload, dense, text) in _FILTER_DATA.items()
            ],
        )
        return ids

    @pytest.mark.parametrize(
        ("where", "expected"), [c[1:] for c in _FILTER_CASES], ids=[c[0] for c in _FILTER_CASES]
    )
    async def test_count_and_scroll_filters(
        self, store: MemoryStore, filter_data: dict[str, str], where: Where | None, expected: str
    ) -> None:
        assert await store.count("memories", where) == len(expected)
        names = sorted(p.payload["name"] for p in await scroll_all(store, "memories", where))
        assert "".join(names) == expected

    async def test_facet_counts_values_within_the_filter(self, store: MemoryStore) -> None:
        rows: list[tuple[str, str, str | None]] = [
            ("u1", "fact", "a"),
            ("u1", "fact", "b"),
            ("u1", "raw", "a"),
            ("u2", "fact", "a"),
        ]
        rows += [("u2", "profile", None), ("u3", "fact", "a")]
        points: list[StoredPoint] = []
        for user, layer, app in rows:
            payload = {"user_id": user, "layer": layer} | ({"app_id": app} if app else {})
            points.append(StoredPoint(uid(), payload))
        await store.upsert("memories", points)
        assert await store.facet("memories", "user_id") == [("u1", 3), ("u2", 2), ("u3", 1)]
        assert await store.facet("memories", "layer", limit=2) == [("fact", 4), ("profile", 1)]
        only_u1 = Where(must=(Match("user_id", "u1"),))
        assert await store.facet("memories", "layer", only_u1) == [("fact", 2), ("raw", 1)]
        assert await store.facet("memories", "app_id") == [("a", 4), ("b", 1)]
        nobody = Where(must=(Match("user_id", "u9"),))
        assert await store.facet("memories", "app_id", nobody) == []

    # -- queries ---------------------------------------------------------------------

    async def test_dense_query_ranks_by_cosine_within_the_filter(self, store: MemoryStore) -> None:
        docs = {"same": vec(2), "near": vec(1, 1), "orthogonal": vec(0, 1), "opposite": vec(-1)}
        ids = {name: uid() for name in docs}
        other = uid()
        await store.upsert(
            "memories",
            [
                *(StoredPoint(ids[n], {"user_id": "u1", "name": n}, v) for n, v in docs.items()),
                StoredPoint(uid(), {"user_id": "u1", "name": "no-vector"}),
                StoredPoint(other, {"user_id": "u2", "name": "other-user"}, vec(1)),
            ],
        )
        u1 = Where(must=(Match("user_id", "u1"),))

        hits = await store.dense_query(vec(1), u1, limit=10)
        assert [h.point.payload["name"] for h in hits] == ["same", "near", "orthogonal", "opposite"]
        assert [h.score for h in hits] == pytest.approx([1.0, math.sqrt(0.5), 0.0, -1.0], abs=1e-5)
        assert hits[0].point.id == ids["same"] and hits[0].point.payload == {
            "user_id": "u1",
            "name": "same",
        }
        assert [h.point.payload["name"] for h in await store.dense_query(vec(1), u1, limit=2)] == [
            "same",
            "near",
        ]
        assert other in {h.point.id for h in await store.dense_query(vec(1), None, limit=10)}

    async def _hybrid_corpus(self, store: MemoryStore) -> dict[str, str]:
        docs = {  # name: (user, dense, text)
            "target": ("u1", vec(1, 0.1), "postgres migration plan"),
            "dense_only": ("u1", vec(1, 0.5), "sunny weather today"),
            "filler": ("u1", vec(0, 1), "garden flowers bloom"),
            "bm25_only": ("u1", vec(-1), "postgres tuning notes"),
            "other_user": ("u2", vec(1, 0.1), "postgres migration plan"),
        }
        ids = {name: uid() for name in docs}
        await store.upsert(
            "memories",
            [
                StoredPoint(ids[n], {"user_id": u, "name": n}, d, _bm25.document(t))
                for n, (u, d, t) in docs.items()
            ],
        )
        await store.upsert(
            "memories", [StoredPoint(uid(), {"user_id": "u1", "name": "no_vectors"})]
        )
        return ids

    async def test_hybrid_query_fuses_dense_and_bm25_with_rrf(self, store: MemoryStore) -> None:
        await self._hybrid_corpus(store)
        u1 = Where(must=(Match("user_id", "u1"),))
        query = _bm25.query("postgres migration")

        hits = await store.hybrid_query(vec(1), query, u1, limit=10, prefetch_limit=10, rrf_k=2)
        # dense ranks: target, dense_only, filler, bm25_only; bm25 ranks: target, bm25_only
        assert [h.point.payload["name"] for h in hits] == [
            "target",
            "bm25_only",
            "dense_only",
            "filler",
        ]
        assert [h.score for h in hits] == pytest.approx(
            [1 / 2 + 1 / 2, 1 / 3 + 1 / 5, 1 / 3, 1 / 4], rel=1e-4
        )
        assert all(h.point.payload["user_id"] == "u1" for h in hits)

        wide = await store.hybrid_query(vec(1), query, u1, limit=2, prefetch_limit=10, rrf_k=60)
        assert [h.point.payload["name"] for h in wide] == ["target", "bm25_only"]
        assert wide[0].score == pytest.approx(2 / 60, rel=1e-4)

        everyone = await store.hybrid_query(
            vec(1), query, None, limit=10, prefetch_limit=10, rrf_k=2
        )
        assert "other_user" in {h.point.payload["name"] for h in everyone}

    async def test_sparse_query_ranks_bm25_matches_within_the_filter(
        self, store: MemoryStore
    ) -> None:
        await self._hybrid_corpus(store)
        u1 = Where(must=(Match("user_id", "u1"),))
        hits = await store.sparse_query(_bm25.query("postgres migration"), u1, limit=10)
        assert [h.point.payload["name"] for h in hits] == ["target", "bm25_only"]
        assert hits[0].score > hits[1].score > 0
        one = await store.sparse_query(_bm25.query("postgres migration"), u1, limit=1)
        assert [h.point.payload["name"] for h in one] == ["target"]
        everyone = await store.sparse_query(_bm25.query("postgres"), None, limit=10)
        assert "other_user" in {h.point.payload["name"] for h in everyone}
        assert await store.sparse_query(SparseVector([], []), u1, limit=10) == []

    async def test_hybrid_query_with_an_empty_sparse_vector_is_dense_only(
        self, store: MemoryStore
    ) -> None:
        await self._hybrid_corpus(store)
        u1 = Where(must=(Match("user_id", "u1"),))
        hits = await store.hybrid_query(
            vec(1), SparseVector([], []), u1, limit=10, prefetch_limit=10, rrf_k=2
        )
        assert [h.point.payload["name"] for h in hits] == [
            "target",
            "dense_only",
            "filler",
            "bm25_only",
        ]
        assert hits[0].score == pytest.approx(1 / 2, rel=1e-4)

    # -- payload-only collections ------------------------------------------------------

    @pytest.mark.parametrize("collection", ["events", "meta"])
    async def test_payload_only_collections(
        self, store: MemoryStore, collection: Collection
    ) -> None:
        ids = [uid() for _ in range(3)]
        points = [
            StoredPoint(i, {"group": f"t{n % 2}", "n": n, "blob": {"k": [n]}})
            for n, i in enumerate(ids)
        ]
        await store.upsert(collection, points)

        got = {p.id: p.payload for p in await store.retrieve(collection, ids, with_vectors=True)}
        assert got == {p.id: p.payload for p in points}
        assert await store.count(collection, Where(must=(Match("group", "t0"),))) == 2
        assert {p.id for p in await scroll_all(store, collection)} == set(ids)
        other: Collection = "memories" if collection != "memories" else "events"
        assert await store.retrieve(other, ids) == []

        await store.upsert(collection, [StoredPoint(ids[0], {"group": "t9"})])
        await store.delete(collection, [ids[1]])
        assert await store.count(collection) == 2
        assert [p.payload for p in await store.retrieve(collection, [ids[0]])] == [{"group": "t9"}]

    # -- lifecycle and maintenance ----------------------------------------------------

    async def _seed(self, store: MemoryStore) -> dict[str, StoredPoint]:
        points = {
            "memory": StoredPoint(
                uid(),
                {"content": "长期记忆", "created_at": "2024-01-01T00:00:00Z"},
                vec(1, 2),
                _bm25.document("long term memory"),
            ),
            "bare": StoredPoint(uid(), {"content": "no vectors"}),
        }
        await store.upsert("memories", [points["memory"], points["bare"]])
        points["event"] = StoredPoint(
            uid(), {"atom_id": "x", "kind": "add", "at": "2024-01-01T00:00:00Z"}
        )
        await store.upsert("events", [points["event"]])
        points["meta"] = StoredPoint(uid(), {"schema": 1, "embedder": "hash"})
        await store.upsert("meta", [points["meta"]])
        return points

    async def test_reopen_after_close_keeps_data(self, store: MemoryStore) -> None:
        if not self.persistent:
            pytest.skip("the backend does not persist data across close()")
        points = await self._seed(store)
        await store.close()

        again = self.reopen(store)
        await again.open(self.vector_size)
        try:
            [memory] = await again.retrieve("memories", [points["memory"].id], with_vectors=True)
            assert memory.payload == points["memory"].payload
            assert memory.dense == pytest.approx(unit(vec(1, 2)), abs=1e-5)
            assert as_dict(memory.sparse) == pytest.approx(as_dict(points["memory"].sparse))
            assert await again.count("memories") == 2
            assert [p.payload for p in await again.retrieve("events", [points["event"].id])] == [
                points["event"].payload
            ]
            assert [p.payload for p in await again.retrieve("meta", [points["meta"].id])] == [
                points["meta"].payload
            ]
            assert [h.point.id for h in await again.dense_query(vec(1, 2), None, limit=5)] == [
                points["memory"].id
            ]
        finally:
            await again.close()

    async def test_reopen_with_another_vector_size_is_refused(self, store: MemoryStore) -> None:
        if not self.persistent:
            pytest.skip("the backend does not persist data across close()")
        points = await self._seed(store)
        await store.close()

        with pytest.raises(EmbedderMismatchError, match=f"{self.vector_size}-d"):
            await self.reopen(store).open(self.vector_size * 2)

        again = self.reopen(store)  # the refused open left the store intact and free
        await again.open(self.vector_size)
        try:
            assert await again.count("memories") == 2
            assert len(await again.retrieve("meta", [points["meta"].id])) == 1
        finally:
            await again.close()

    async def test_compact_keeps_all_live_data(self, store: MemoryStore) -> None:
        ids = [uid() for _ in range(20)]
        await store.upsert(
            "memories",
            [
                StoredPoint(
                    i, {"n": n, "v": "old"}, vec(1, n), _bm25.document(f"note {n} postgres")
                )
                for n, i in enumerate(ids)
            ],
        )
        await store.upsert(
            "memories",
            [StoredPoint(i, {"n": n, "v": "new"}, vec(1, n)) for n, i in enumerate(ids[:5])],
        )
        await store.delete("memories", ids[5:10])
        await store.delete_vectors(ids[10:13])
        events = [uid() for _ in range(10)]
        await store.upsert("events", [StoredPoint(i, {"kind": "add"}) for i in events])
        await store.delete("events", events[:2])
        meta = StoredPoint(uid(), {"schema": 1})
        await store.upsert("meta", [meta])

        await store.compact()

        got = {p.id: p for p in await store.retrieve("memories", ids, with_vectors=True)}
        assert set(got) == set(ids[:5]) | set(ids[10:])
        assert all(
            got[i].payload["v"] == "new" and got[i].dense is not None and got[i].sparse is None
            for i in ids[:5]
        )
        assert all(
            got[i].payload["v"] == "old" and got[i].dense is None and got[i].sparse is None
            for i in ids[10:13]
        )
        assert all(got[i].dense is not None and got[i].sparse is not None for i in ids[13:])
        assert await store.count("memories", Where(must=(HasVector(DENSE),))) == 12
        assert {h.point.id for h in await store.dense_query(vec(1), None, limit=50)} == set(
            ids[:5]
        ) | set(ids[13:])
        hits = await store.hybrid_query(
            vec(1), _bm25.query("postgres"), None, limit=50, prefetch_limit=50, rrf_k=2
        )
        assert {h.point.id for h in hits} == set(ids[:5]) | set(ids[13:])
        assert {p.id for p in await scroll_all(store, "events")} == set(events[2:])
        assert [p.payload for p in await store.retrieve("meta", [meta.id])] == [{"schema": 1}]

        late = StoredPoint(uid(), {"n": 99}, vec(0, 1))  # still writable afterwards
        await store.upsert("memories", [late])
        assert [p.id for p in await store.retrieve("memories", [late.id])] == [late.id]
