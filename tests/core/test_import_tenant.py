"""An import stays inside the importing tenant: two tenants of one store, through the SDK.

The ids of an export travel (files, logs), so another tenant may hold them: it must not
learn so from its import, must not keep the owner's import out by taking the ids first,
and nothing imported may refer into another tenant.
"""

from __future__ import annotations

import io
import json

import pytest

from memhub import MemHubError, MemoryClient, NotFoundError
from memhub.engine.transfer import _import_ids, transfer
from memhub.engine.transfer._import_ids import MANY, ONE, TRIES
from memhub.ids import from_point_id, new_id, to_point_id
from memhub.scope import Scope
from memhub.store.base import StoredPoint
from memhub.testing import HashEmbedder


@pytest.fixture(params=["in one process", "with a worker process"])
def piped(request, monkeypatch):
    """Both ways an import runs (``transfer.PIPED``), a line a batch: a reference crosses
    batches, and the worker prepares every batch but the first."""
    monkeypatch.setattr(transfer, "PIPED", 0 if request.param == "with a worker process" else 10**9)
    monkeypatch.setattr(transfer, "BATCH", 1)
    return request.param


@pytest.fixture
async def tenants(tmp_path):
    """Clients of tenants ``acme`` (the owner) and ``mallory`` on one store."""
    async with MemoryClient(
        storage_dir=tmp_path / "store", embed=HashEmbedder(), scope=Scope(tenant="acme")
    ) as acme:
        mallory = MemoryClient(engine=acme.engine, scope=Scope(tenant="mallory"))
        yield acme, mallory


async def _exported(client: MemoryClient) -> list[str]:
    out = io.StringIO()
    await client.export(out)
    return out.getvalue().splitlines()


def _probe(atom_id: str) -> list[str]:
    """A one-memory file naming ``atom_id``, as anyone can write one."""
    memory = {
        "id": atom_id,
        "content": "probe",
        "layer": "fact",
        "user_id": "mallory",
        "created_at": "2024-01-01T00:00:00.000Z",
    }
    return [json.dumps({"id": atom_id, "memory": memory, "events": []})]


async def _stored(client: MemoryClient) -> list[dict]:
    """Every record of the client's tenant as its export has it."""
    return [json.loads(line)["memory"] for line in (await _exported(client))[1:]]


@pytest.mark.usefixtures("piped")
async def test_probing_with_another_tenants_id_looks_like_probing_with_a_random_one(tenants):
    acme, mallory = tenants
    held = (await acme.memorize("the vault code is 4711", user_id="alice")).atom_id
    before = await _stored(acme)

    unheld = new_id()

    foreign = await mallory.import_(_probe(held))
    random = await mallory.import_(_probe(unheld))
    assert foreign.model_dump() == random.model_dump()
    assert (foreign.imported, foreign.skipped) == (1, 0)
    # probed again, both are mallory's own now: skipped alike
    again = await mallory.import_(_probe(held))
    assert again.model_dump() == (await mallory.import_(_probe(unheld))).model_dump()
    assert (again.imported, again.skipped) == (0, 1)

    assert await _stored(acme) == before
    assert (await acme.get(held, user_id="alice")).content == "the vault code is 4711"
    # mallory's probe is mallory's own record, under an id of its own
    probes = {m["id"] for m in await _stored(mallory) if m["content"] == "probe"}
    assert len(probes) == 2 and held not in probes and unheld in probes


@pytest.mark.usefixtures("piped")
async def test_another_tenant_importing_the_ids_first_does_not_stop_the_owners_import(
    tenants, tmp_path
):
    acme, mallory = tenants
    # acme moves its memories from an old store; mallory got hold of the file first
    async with MemoryClient(
        storage_dir=tmp_path / "old", embed=HashEmbedder(), scope=Scope(tenant="acme")
    ) as old:
        first = await old.memorize("the project runs PostgreSQL 16", user_id="alice")
        current = (
            await old.correct(
                first.atom_id,
                "replace",
                "upgraded",
                "the project runs PostgreSQL 17",
                user_id="alice",
            )
        ).new_atom_id
        await old.memorize("deploys need a second reviewer", user_id="alice")
        lines = await _exported(old)
        mine = await _stored(old)

    taken = await mallory.import_(lines)
    assert (taken.imported, taken.skipped) == (3, 0)
    owned = await acme.import_(lines)
    assert (owned.imported, owned.skipped) == (3, 0)
    assert (await acme.import_(lines)).skipped == 3  # again: nothing added
    assert (await mallory.import_(lines)).skipped == 3

    back = await _stored(acme)
    assert {m["content"] for m in back} == {m["content"] for m in mine}
    assert all(m["tenant"] == "acme" for m in back)
    assert (await acme.recall("PostgreSQL", user_id="alice")).atoms[0].content == (
        "the project runs PostgreSQL 17"
    )
    # its chain and history came whole, in the owner's tenant
    latest = next(m for m in back if m["content"].endswith("17"))
    history = await acme.history(latest["id"], user_id="alice")
    assert [s.action for s in history.status_history] == ["replace"]
    assert len(history.relations.chain) == 2
    assert history.relations.chain[-1] == latest["id"]
    with pytest.raises(NotFoundError):  # the original id is mallory's now, not acme's
        await acme.get(current, user_id="alice")


@pytest.mark.usefixtures("piped")
async def test_imported_references_never_point_into_another_tenant(tenants):
    acme, mallory = tenants
    first = await acme.memorize("the office is in Berlin", user_id="alice")
    await acme.correct(
        first.atom_id, "replace", "moved", "the office is in Hamburg", user_id="alice"
    )
    source = (await acme.memorize("a deploy skipped the backup", user_id="alice")).atom_id
    await acme.govern(source, "derive_lesson", "lesson", "back up before deploys", user_id="alice")
    await acme.add(
        messages=[
            {"role": "user", "content": "my favourite language is Java"},
            {"role": "assistant", "content": "noted"},
            {"role": "user", "content": "and I live in Hamburg"},
        ],
        user_id="alice",
    )
    lines = await _exported(acme)
    acme_ids = {to_point_id(m["id"]) for m in await _stored(acme)}

    result = await mallory.import_(lines)
    assert result.imported == len(lines) - 1

    copied = await _stored(mallory)
    referred = [m[k] for m in copied for k in ONE if m.get(k)]
    referred += [i for m in copied for k in MANY for i in m.get(k) or []]
    assert referred, "the export should carry references"
    assert not {to_point_id(i) for i in referred} & acme_ids
    assert set(referred) <= {m["id"] for m in copied}  # and they resolve in mallory's tenant
    for memory in copied:
        history = await mallory.history(memory["id"])
        related = [s.related for s in history.status_history if getattr(s, "related", None)]
        assert not {to_point_id(i) for i in related} & acme_ids
        assert history.status_history or memory["layer"] == "raw"


async def test_the_fresh_ids_are_tried_in_turn_and_an_import_with_none_left_writes_nothing(
    tenants,
):
    """Another tenant holding the derived ids too (it cannot compute them: they need the
    store's secret) costs more tries; with every try taken the batch fails whole."""
    acme, mallory = tenants
    engine = acme.engine
    held = (await acme.memorize("the vault code is 4711", user_id="alice")).atom_id
    key = await engine.owner.call(_import_ids.secret(engine))  # on the engine's own loop
    tries = [_import_ids.derived(key, "mallory", to_point_id(held), k) for k in range(TRIES)]

    async def take(pids: list[str]) -> None:
        points = [StoredPoint(p, {"id": from_point_id(p), "tenant": "acme"}) for p in pids]
        await engine.owner.call(engine.store.upsert("memories", points))

    await take(tries[:-1])
    assert (await mallory.import_(_probe(held))).imported == 1
    assert [m["id"] for m in await _stored(mallory)] == [from_point_id(tries[-1])]

    await take(tries[-1:])  # as if mallory's copy were acme's: every try is taken now
    before = await _stored(mallory)
    with pytest.raises(MemHubError, match="no free id"):
        await mallory.import_(_probe(held))
    assert await _stored(mallory) == before == []
