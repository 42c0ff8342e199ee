"""The inspector's reads: every record of a tenant, paged newest first, counted by facet."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memhub import InvalidInputError, NotFoundError
from memhub.engine.core import Engine
from memhub.engine.read import browse
from memhub.engine.records import new_payload
from memhub.ids import new_id
from memhub.scope import SCOPE_KEYS, Scope


async def _write(engine: Engine, count: int, *, at: str | None = None, **scope: str) -> list[str]:
    """``count`` memories, with the same ``created_at`` when ``at`` is given."""
    payloads = []
    for i in range(count):
        payload = new_payload(new_id(), f"note {i} of {scope}", layer="fact", scope=Scope(**scope))
        if at:
            payload["created_at"] = at
        payloads.append(payload)
    await engine.insert(payloads, [None] * count)
    return [p["id"] for p in payloads]


async def test_pages_walk_every_memory_once_newest_first_even_with_equal_times(client) -> None:
    engine = client.engine
    same = await _write(engine, 7, at="2025-01-01T00:00:00.000Z", tenant="t1", user_id="alice")
    newer = await _write(engine, 5, tenant="t1", user_id="alice")
    await _write(engine, 3, tenant="t2", user_id="alice")  # another tenant: never listed

    seen, cursor = [], None
    while True:
        page = await browse.page(engine, "t1", limit=3, cursor=cursor)
        seen += [a.atom_id for a in page.atoms]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(same + newer) and len(seen) == len(set(seen))
    assert set(seen[:5]) == set(newer)  # the newer writes come first


async def test_filters_narrow_pages_and_facets(client) -> None:
    engine = client.engine
    a = await _write(engine, 4, tenant="t1", user_id="alice", repository="acme/api")
    b = await _write(engine, 2, tenant="t1", user_id="bob")
    page = await browse.page(engine, "t1", {"user_id": "bob", "app_id": ""})
    assert {x.atom_id for x in page.atoms} == set(b) and page.next_cursor is None
    page = await browse.page(engine, "t1", {"repository": "acme/api"})
    assert {x.atom_id for x in page.atoms} == set(a)
    assert await browse.facet(engine, "t1", "user_id") == [("alice", 4), ("bob", 2)]
    assert await browse.facet(engine, "t1", "repository") == [("acme/api", 4)]
    assert await browse.counts_by(engine, "t1", "user_id", "bob", "layer", ("fact", "raw")) == {
        "fact": 2,
        "raw": 0,
    }


async def test_every_scope_key_but_the_tenant_narrows_a_page(client) -> None:
    keys = [k for k in SCOPE_KEYS if k != "tenant"]
    assert {"user_id", "app_id", "agent_id", "session_id", "repository", "branch"} <= set(keys)
    written = {k: await _write(client.engine, 1, tenant="t1", **{k: f"{k}-1"}) for k in keys}
    for key in keys:
        page = await browse.page(client.engine, "t1", {key: f"{key}-1"})
        assert [a.atom_id for a in page.atoms] == written[key], key
    with pytest.raises(InvalidInputError, match="cannot filter on 'tenant'"):
        await browse.page(client.engine, "t1", {"tenant": "t2"})


async def test_governed_memories_are_listed_without_their_text(client) -> None:
    r = await client.memorize("the vault code is 4471", user_id="alice")
    await client.govern(r.atom_id, "seal", "not ours to keep", user_id="alice")
    page = await browse.page(client.engine, client.scope.tenant, {"exposure": "sealed"})
    assert [a.atom_id for a in page.atoms] == [r.atom_id]
    assert "4471" not in page.atoms[0].content and "sealed" in page.atoms[0].content


async def test_activity_counts_decisions_per_day_and_a_replace_once(client) -> None:
    r = await client.memorize("we deploy on Fridays", user_id="alice")
    await client.correct(r.atom_id, "replace", "changed", "we deploy on Mondays", user_id="alice")
    days = await browse.activity(client.engine, client.scope.tenant, days=3)
    today = datetime.now(UTC).date().isoformat()
    assert list(days)[-1] == today and len(days) == 3
    assert days[today] == {"memorize": 1, "replace": 1}
    assert await browse.activity(client.engine, "someone-else", days=1) == {today: {}}


async def test_atom_reads_any_memory_of_the_tenant_and_no_other(client) -> None:
    (mine,) = await _write(client.engine, 1, tenant="t1", user_id="alice")
    assert (await browse.atom(client.engine, "t1", mine)).scope["user_id"] == "alice"
    with pytest.raises(NotFoundError):
        await browse.atom(client.engine, "t2", mine)


async def test_bad_input_is_refused(client) -> None:
    with pytest.raises(InvalidInputError, match="cannot filter on 'content'"):
        await browse.page(client.engine, "t1", {"content": "x"})
    with pytest.raises(InvalidInputError, match="cursor"):
        await browse.page(client.engine, "t1", cursor="not-a-cursor")
    with pytest.raises(InvalidInputError, match="limit"):
        await browse.page(client.engine, "t1", limit=0)
