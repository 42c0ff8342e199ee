"""``MemHubStore`` beyond LangGraph's suite: TTL, memhub scoping, durability and the sync/async
faces.
"""

from __future__ import annotations

import asyncio
import math
import time
from datetime import UTC, datetime, timedelta

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp
from lg_fakes import BACKENDS, run_apart

from memhub import MemoryClient, Settings, UsageError
from memhub.store.base import Match, Where
from memhub.store.server import QdrantServerStore
from memhub.testing import HashEmbedder
from memhub_langgraph import MemHubStore, _items, namespace_scope


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, minutes: float) -> None:
        self.at += timedelta(minutes=minutes)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(_items, "now", clock)
    return clock


def _points(store: MemHubStore, layer: str) -> list[dict]:
    where = Where(must=(Match("layer", layer),))
    points, _ = run_apart(store.client.records.scroll("memories", where, limit=1000))
    return [p.payload for p in points]


@pytest.mark.parametrize("backend", BACKENDS)
def test_ttl_expiry_refresh_and_sweep(make_client, clock, backend):
    store = MemHubStore(make_client("ttl", backend), ttl={"refresh_on_read": True})
    store.put(("s",), "short", {"text": "expires soon"}, ttl=10)
    store.put(("s",), "forever", {"text": "stays"})

    clock.advance(8)
    assert store.get(("s",), "short") is not None  # a read refreshes: expiry now +10 from here
    clock.advance(8)
    assert store.get(("s",), "short", refresh_ttl=False) is not None
    clock.advance(3)  # 11 minutes since the last refresh
    assert store.get(("s",), "short") is None
    assert [i.key for i in store.search(("s",))] == ["forever"]
    assert [i.key for i in store.search(("s",), query="expires soon")] == ["forever"]
    assert store.list_namespaces() == [("s",)]

    assert len(_points(store, "item")) == 2  # invisible, not yet deleted
    assert store.sweep_ttl() == 1
    assert [p["key"] for p in _points(store, "item")] == ["forever"]

    # search refreshes too
    store.put(("s",), "short", {"text": "again"}, ttl=10)
    clock.advance(8)
    assert [i.key for i in store.search(("s",), filter={"text": "again"})] == ["short"]
    clock.advance(8)
    assert store.get(("s",), "short", refresh_ttl=False) is not None
    store.close()


def test_default_ttl_and_background_sweeper(make_client, clock):
    store = MemHubStore(make_client(), ttl={"default_ttl": 1, "sweep_interval_minutes": 60})
    store.put(("a",), "k", {"v": 1})
    store.put(("a",), "keep", {"v": 2}, ttl=None)
    clock.advance(2)
    store.start_ttl_sweeper()
    deadline = time.monotonic() + 10
    while len(_points(store, "item")) != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p["key"] for p in _points(store, "item")] == ["keep"]
    assert store.stop_ttl_sweeper(timeout=5)
    store.close()


def test_items_carry_scope_and_stay_out_of_memhub_reads(tmp_path):
    async def run() -> None:
        client = MemoryClient(storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path)
        store = MemHubStore(client, scope=namespace_scope(user_id=1))
        await store.aput(
            ("profiles", "alice"), "diet", {"text": "Alice is vegetarian"}, index=["text"]
        )
        await store.aput(
            ("profiles", "alice"),
            "tags",
            {"tags": ["vegetarian cooking", "vegetarian travel"]},
            index=["tags[*]"],
        )
        await client.add("Alice is vegetarian and loves cooking", user_id="alice")

        payload = _points(store, "item")[0]
        assert payload["user_id"] == "alice" and payload["tenant"] == client.scope.tenant
        assert {p["user_id"] for p in _points(store, "item_text")} == {"alice"}
        # memhub's own reads never return store items
        found = await client.search("vegetarian", user_id="alice")
        assert all("loves cooking" in m.content for m in found.memories.all())
        assert all(m.layer != "item" for m in await client.list(user_id="alice"))
        assert all(
            t.content.startswith("Alice is vegetarian and")
            for t in (await client.search_conversation("vegetarian", user_id="alice")).turns
        )
        assert (await store.asearch(("profiles",), query="vegetarian travel"))[0].key == "tags"
        await store.aclose()
        await client.aclose()

    asyncio.run(run())


async def test_tenants_never_see_each_other(tmp_path):
    qdrant = QdrantServerStore(":memory:")
    acme = MemoryClient(
        settings=Settings.load(tenant="acme"), store=qdrant, embed=HashEmbedder(), cwd=tmp_path
    )
    umbrella = MemoryClient(
        settings=Settings.load(tenant="umbrella"), store=qdrant, embed=HashEmbedder(), cwd=tmp_path
    )
    a, u = MemHubStore(acme), MemHubStore(umbrella)
    await a.aput(("docs",), "plan", {"text": "acme launch plan"})
    await u.aput(("docs",), "plan", {"text": "umbrella launch plan"})
    assert (await a.aget(("docs",), "plan")).value == {"text": "acme launch plan"}
    assert [i.value["text"] for i in await u.asearch(("docs",), query="launch plan")] == [
        "umbrella launch plan"
    ]
    await a.adelete(("docs",), "plan")
    assert await u.aget(("docs",), "plan") is not None
    await a.aclose()
    await u.aclose()


def test_values_round_trip_exactly(make_client):
    store = MemHubStore(make_client())
    value = {
        "big": 2**70,
        "nan": math.nan,
        "neg": -0.0,
        "nested": {"a.b": [1, {"c": None}]},
        "zh": "中文",
        "t": True,
    }
    store.put(("v",), "k", value)
    got = store.get(("v",), "k").value
    assert got["big"] == 2**70 and math.isnan(got["nan"]) and math.copysign(1, got["neg"]) == -1
    assert {k: v for k, v in got.items() if k != "nan"} == {
        k: v for k, v in value.items() if k != "nan"
    }
    store.close()


def test_reput_replaces_vectors_and_texts(make_client):
    store = MemHubStore(make_client(), index={"fields": ["notes[*]"]})
    store.put(("n",), "k", {"notes": ["alpha particle", "beta decay", "gamma ray"]})
    store.put(("n",), "other", {"notes": ["unrelated gardening tips"]})
    assert len(_points(store, "item_text")) == 2  # texts 2 and 3 of "k"
    assert store.search(("n",), query="gamma ray")[0].key == "k"

    store.put(("n",), "k", {"notes": ["alpha particle"]})
    assert _points(store, "item_text") == []
    hits = {h.key: h.score for h in store.search(("n",), query="gamma ray")}
    assert hits["k"] < 0.9  # only "alpha particle" is left to match

    store.put(("n",), "k", {"notes": ["gamma ray"]}, index=False)
    hits = store.search(("n",), query="gamma ray", limit=1)
    assert [(h.key, h.score) for h in hits][0][0] == "other"  # "k" has no vectors any more
    assert {h.key: h.score for h in store.search(("n",), query="gamma ray")} == {
        "other": hits[0].score,
        "k": None,
    }
    store.delete(("n",), "k")
    assert [p["key"] for p in _points(store, "item")] == ["other"]
    store.close()


def test_secrets_are_kept_in_the_value_but_not_indexed(make_client):
    store = MemHubStore(make_client())
    store.put(("s",), "creds", {"text": "password=hunter2secret"})
    store.put(("s",), "story", {"text": "the hunter2secret novel"})
    assert store.get(("s",), "creds").value == {"text": "password=hunter2secret"}
    hits = {h.key: h.score for h in store.search(("s",), query="hunter2secret")}
    assert hits["story"] > hits["creds"]
    assert hits["creds"] < 0.5  # the secret never reached the index: "password=[REDACTED…]"
    store.close()


def test_batch_reads_see_the_state_before_its_puts(make_client):
    store = MemHubStore(make_client())
    store.put(("b",), "k", {"v": 1})
    results = store.batch(
        [PutOp(("b",), "k", {"v": 2}), GetOp(("b",), "k"), PutOp(("b",), "k", {"v": 3})]
    )
    assert results[1].value == {"v": 1}  # as InMemoryStore: puts apply after the batch's reads
    assert store.get(("b",), "k").value == {"v": 3}  # the last put to a key wins
    store.close()


def test_namespaces_are_validated(make_client):
    store = MemHubStore(make_client())
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "x"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a.b",), "k", {"v": 1})])  # would alias ("a", "b")
    store.close()


def test_reopen_keeps_items(tmp_path):
    first = MemHubStore(storage_dir=tmp_path / "s", embed=HashEmbedder())
    first.put(("p",), "k", {"text": "persisted across restarts"}, ttl=None)
    first.close()
    second = MemHubStore(storage_dir=tmp_path / "s", embed=HashEmbedder())
    assert second.get(("p",), "k").value == {"text": "persisted across restarts"}
    assert second.search(("p",), query="restarts")[0].key == "k"
    second.close()


async def test_async_and_sync_faces_together(make_client):
    store = MemHubStore(make_client())
    await asyncio.gather(
        *(store.aput(("c", str(i % 3)), f"k{i}", {"text": f"note {i}"}) for i in range(30))
    )
    # a sync call from another thread while the async face is busy
    counts = await asyncio.gather(
        asyncio.to_thread(lambda: len(store.search(("c",), limit=100))),
        store.asearch(("c",), limit=100),
    )
    assert counts[0] == 30 and len(counts[1]) == 30
    assert await store.alist_namespaces() == [("c", "0"), ("c", "1"), ("c", "2")]
    await store.aclose()


class _CallsBack(HashEmbedder):
    """Calls the sync face of ``store`` from the store's own loop, where memhub awaits it."""

    def __init__(self) -> None:
        super().__init__()
        self.store: MemHubStore | None = None
        self.raised: list[UsageError] = []

    async def embed_query(self, text):
        assert self.store is not None
        try:
            self.store.get(("x",), "k")
        except UsageError as err:
            self.raised.append(err)
        return await super().embed_query(text)


def test_sync_batch_on_its_own_loop_is_a_clear_error(make_client):
    embed = _CallsBack()
    store = embed.store = MemHubStore(make_client(embed=embed))
    store.put(("x",), "k", {"text": "a note"})
    assert [i.key for i in store.search(("x",), query="note")] == ["k"]  # did not deadlock
    (err,) = embed.raised
    assert "abatch" in str(err)
    store.close()
    with pytest.raises(UsageError, match="closed"):
        store.get(("x",), "k")


def test_index_config_is_checked(make_client):
    client = make_client()
    with pytest.raises(ValueError, match="dims"):
        MemHubStore(client, index={"dims": 3})
    with pytest.raises(ValueError, match="client or storage_dir"):
        MemHubStore()


def test_forget_user_deletes_the_users_items_and_no_one_elses(tmp_path):
    async def run() -> None:
        client = MemoryClient(storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path)
        store = MemHubStore(client, scope=namespace_scope(user_id=1))
        await store.aput(("profiles", "alice"), "diet", {"text": "Alice is vegetarian"})
        await store.aput(
            ("profiles", "alice"),
            "tags",
            {"tags": ["vegetarian cooking", "vegetarian travel"]},
            index=["tags[*]"],
        )
        await store.aput(("profiles", "bob"), "diet", {"text": "Bob is vegetarian too"})
        written = await client.add("Alice is vegetarian", user_id="alice")

        result = await client.forget_user("alice")

        assert result.tombstoned == 2 + len(written.raw_ids) + written.extracted_count
        assert await store.aget(("profiles", "alice"), "diet") is None
        found = await store.asearch(("profiles",), query="vegetarian travel")
        assert [(i.namespace, i.key) for i in found] == [(("profiles", "bob"), "diet")]
        assert [i.namespace for i in await store.asearch(("profiles",))] == [("profiles", "bob")]
        assert await store.alist_namespaces() == [("profiles", "bob")]
        assert {p["user_id"] for p in _points(store, "item_text")} == set()
        assert (await client.forget_user("alice")).tombstoned == 0
        await store.aclose()
        await client.aclose()

    asyncio.run(run())
