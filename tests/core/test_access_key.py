"""The access key answers exactly what the explicit scope conditions answer.

Every read filters with ``visible()`` (one ``MatchAny`` on the access key); the
explicit form (``_explicit``: one payload condition per rule) is the specification. Both run on a
real Edge store over memories of every shape.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from memhub import MemoryClient
from memhub.engine import access
from memhub.engine.access import ACCESS_KEY
from memhub.engine.core import _META_ID, SCHEMA_VERSION
from memhub.engine.filters import visible
from memhub.engine.payload import as_stored
from memhub.engine.records import new_payload
from memhub.ids import new_id, to_point_id
from memhub.scope import ANY, Scope
from memhub.store.base import IsEmpty, Match, MatchAny, StoredPoint, Where
from memhub.store.edge import EdgeStore
from memhub.testing import HashEmbedder

USERS = ("alice", "bob", None)
APPS = ("default", "chat", None)
LAYERS = ("fact", "profile", "raw", "procedure")
STATUSES = ("active", "superseded", "archived")
EXPOSURES = ("visible", "quarantined", "sealed")
WORKSPACES = ("/w/one", None)
REPOS = ("acme/api", "acme/web", None)
BRANCHES = ("main", "dev", None)


def _memories(rng: random.Random, n: int) -> list[dict]:
    out = []
    for _ in range(n):
        scope = Scope(
            tenant=rng.choice(("local", "t2")),
            user_id=rng.choice(USERS),
            app_id=rng.choice(APPS),
            agent_id=rng.choice(("a1", None)),
            workspace=rng.choice(WORKSPACES),
            repository=rng.choice(REPOS),
            branch=rng.choice(BRANCHES),
        )
        payload = new_payload(
            new_id(), "text", layer=rng.choice(LAYERS), scope=scope, status=rng.choice(STATUSES)
        )
        payload["exposure"] = rng.choice(EXPOSURES)
        out.append(payload)
    return out


def _read_scopes(rng: random.Random, n: int):
    for _ in range(n):
        scope = Scope(
            tenant=rng.choice(("local", "t2")),
            user_id=rng.choice(USERS),
            app_id=rng.choice((*APPS, ANY)),
            agent_id=rng.choice(("a1", None, None)),
            workspace=rng.choice((*WORKSPACES, ANY)),
            repository=rng.choice((*REPOS, ANY)),
            branch=rng.choice((*BRANCHES, ANY)),
        )
        layers = tuple(rng.sample(LAYERS, rng.randint(1, 3)))
        statuses = tuple(rng.sample(STATUSES, rng.randint(1, 2)))
        app_ids = rng.choice((None, None, ("default", "chat"), (ANY,)))
        yield scope, layers, statuses, app_ids


def _explicit(scope, layers, statuses, app_ids) -> Where:
    """The scope rules, each as its own payload condition."""
    must = [
        Match("tenant", scope.tenant),
        Match("user_id", scope.user_id) if scope.user_id else IsEmpty("user_id"),
    ]
    apps = tuple(app_ids) if app_ids else ((scope.app_id,) if scope.app_id else ())
    if apps and ANY not in apps:  # no app named, or ANY: every app
        must.append(MatchAny("app_id", apps))
    must += [
        Match(k, v) for k in ("agent_id", "session_id") if (v := getattr(scope, k)) and v != ANY
    ]
    for key in ("workspace", "repository", "branch"):  # bound to this checkout, or to none
        value = getattr(scope, key)
        if value is None:
            must.append(IsEmpty(key))
        elif value != ANY:
            must.append(Where(should=(Match(key, value), IsEmpty(key))))
    return Where(
        must=(
            *must,
            MatchAny("layer", layers),
            MatchAny("status", statuses),
            Match("exposure", "visible"),
        )
    )


async def _ids(store, where) -> set[str]:
    points, _ = await store.scroll("memories", where, limit=10_000)
    return {p.payload["id"] for p in points}


def _four_keys(payload: dict) -> list[str]:
    """The keys a memory stored before unbound memories stored two: its app or any app,
    times its exact binding or any binding."""
    stored = as_stored(payload)
    exact = access._binding([stored.get(k) or "" for k in access.BINDING_KEYS])
    return [
        access._key(
            payload.get("tenant", ""),
            payload.get("user_id") or "",
            app,
            payload.get("status", ""),
            payload.get("exposure", ""),
            payload.get("layer", ""),
            binding,
        )
        for app in (payload.get("app_id") or "", access._ANY)
        for binding in (exact, access._ANY)
    ]


def test_an_unbound_memory_stores_two_access_keys_a_bound_one_four():
    unbound = new_payload(new_id(), "text", layer="fact", scope=Scope(user_id="u1"))
    bound = new_payload(
        new_id(), "text", layer="fact", scope=Scope(user_id="u1", repository="acme/api")
    )
    assert len(access.access_keys(unbound)) == 2
    assert set(access.access_keys(unbound)) < set(_four_keys(unbound))
    assert access.access_keys(bound) == _four_keys(bound)


@pytest.mark.parametrize("written", ["today", "with four keys each"])
async def test_visible_selects_exactly_what_the_explicit_conditions_select(tmp_path, written):
    rng = random.Random(42)
    async with MemoryClient(
        storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        engine = client.engine
        payloads = _memories(rng, 600)
        await engine.insert(payloads, [None] * len(payloads))
        if written != "today":  # as a store written before keeps them
            points = await engine.store.retrieve(
                "memories", [to_point_id(p["id"]) for p in payloads]
            )
            for point in points:
                point.payload[ACCESS_KEY] = _four_keys(point.payload)
            await engine.store.upsert("memories", points)
        compared = nonempty = 0
        for scope, layers, statuses, app_ids in _read_scopes(rng, 300):
            expected = await _ids(engine.store, _explicit(scope, layers, statuses, app_ids))
            got = await _ids(
                engine.store, visible(scope, layers, app_ids=app_ids, statuses=statuses)
            )
            assert got == expected, (scope, layers, statuses, app_ids)
            compared += 1
            nonempty += bool(expected)
        assert (
            compared == 300 and nonempty > 100
        )  # the comparison saw real results, not only empty sets


async def test_a_change_of_state_moves_a_memory_out_of_recall(client):
    first = await client.memorize("The project uses PostgreSQL 16", user_id="u1")
    await client.correct(
        first.atom_id, "replace", "upgraded", new_content="The project uses PostgreSQL 17"
    )
    await client.govern(
        (await client.recall("PostgreSQL", user_id="u1")).atoms[0].atom_id, "quarantine", "check"
    )
    assert (await client.recall("PostgreSQL", user_id="u1")).atoms == []
    stored = (await client.engine.store.retrieve("memories", [to_point_id(first.atom_id)]))[
        0
    ].payload
    assert stored[ACCESS_KEY] and stored["status"] == "superseded"


@pytest.mark.parametrize("repository, branch", list(product(("acme/api", None), ("main", None))))
async def test_a_store_from_before_the_access_key_is_backfilled_on_open(
    tmp_path, repository, branch
):
    """Memories written by schema 1 (no access key) are found again after the upgrade."""
    path = tmp_path / "store"
    store = EdgeStore(path)
    embedder = HashEmbedder()
    await store.open(embedder.dim)
    scope = Scope(user_id="u1", app_id="default", repository=repository, branch=branch)
    old = [
        new_payload(new_id(), f"old fact {i} about PostgreSQL", layer="fact", scope=scope)
        for i in range(300)
    ]
    vectors = await embedder.embed_passages([p["content"] for p in old])
    await store.upsert(
        "memories",
        [StoredPoint(to_point_id(p["id"]), p, v) for p, v in zip(old, vectors, strict=True)],
    )
    await store.upsert(
        "meta",
        [
            StoredPoint(
                _META_ID,
                {
                    "schema_version": 1,
                    "embedder": embedder.name,
                    "dim": embedder.dim,
                    "snapshot_version": 7,
                },
            )
        ],
    )
    await store.close()

    async with MemoryClient(storage_dir=path, embed=HashEmbedder(), cwd=tmp_path) as client:
        found = await client.engine.store.count("memories", visible(scope, ("fact",)))
        assert found == 300
        hits = await client.recall(
            "old fact 7 about PostgreSQL",
            user_id="u1",
            repository=repository or ANY,
            branch=branch or ANY,
            limit=3,
        )
        assert hits.atoms and "PostgreSQL" in hits.atoms[0].content
        meta = (await client.engine.store.retrieve("meta", [_META_ID]))[0].payload
        assert meta["schema_version"] == SCHEMA_VERSION and meta["snapshot_version"] == 7
