"""Export and import over REST (``RemoteClient``): the tenant of the key bounds both; an import
sent in many requests (under the body limit) keeps the file's line numbers."""

from __future__ import annotations

import io
import json
import uuid

import httpx
import pytest

from memhub import InvalidInputError
from memhub.remote import RemoteClient
from memhub.scope import Scope
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore


@pytest.fixture
async def remote(scratch, empty_store, copy_store, make_service):
    """Tenant a and b of one server, and tenant c of another (each with its own store)."""
    services, clients = [], []
    for name, tenants in (("one", ("tenant-a", "tenant-b")), ("two", ("tenant-c",))):
        store = copy_store(empty_store, scratch / uuid.uuid4().hex / name)
        keys = KeyStore(store / KEYS_FILE)
        services.append(make_service(store))
        app = create_app(service=services[-1], auth=keys, max_body_bytes=64 * 1024)
        transport = httpx.ASGITransport(app=app)
        clients += [
            RemoteClient(
                "http://memhub.test", keys.create(t)[0], scope=Scope(), transport=transport
            )
            for t in tenants
        ]
    yield clients
    for client in clients:
        await client.aclose()
    for service in services:
        await service.close()


async def test_export_from_one_tenant_and_import_into_another_server(remote, tmp_path, monkeypatch):
    a, b, c = remote
    first = await a.memorize("项目用 PostgreSQL 16 做主数据库", user_id="alice")
    new = (
        await a.correct(
            first.atom_id, "replace", "升级", "项目用 PostgreSQL 17 做主数据库", user_id="alice"
        )
    ).new_atom_id
    for i in range(40):  # enough lines for several import requests
        await a.memorize(f"第 {i} 条记录：服务 svc-{i} 部署在 {i} 号机房", user_id="alice")
    path = tmp_path / "a.jsonl"
    exported = await a.export(path, include_vectors=True)
    assert exported.exported == 42 and exported.events == 43
    empty = io.StringIO()
    assert (await b.export(empty)).exported == 0  # tenant b sees none of a's memories

    monkeypatch.setattr("memhub.remote._IMPORT_CHUNK", 16 * 1024)
    imported = await c.import_(path)
    assert (imported.imported, imported.skipped, imported.embedded) == (42, 0, 0)
    assert (await c.import_(path)).skipped == 42
    history = await c.history(new)
    assert history.relations.chain == [first.atom_id, new]
    assert [s.action for s in history.status_history] == ["replace"]
    assert (await c.recall("PostgreSQL", user_id="alice")).atoms[0].atom_id == new


async def test_bad_lines_over_rest_keep_the_files_line_numbers(remote, tmp_path):
    a, _, b = remote
    await a.memorize("项目用 PostgreSQL 16 做主数据库", user_id="alice")
    await a.memorize("部署需要审批", user_id="alice")
    out = io.StringIO()
    await a.export(out)
    lines = out.getvalue().splitlines()
    lines[2] = "{not json"
    with pytest.raises(InvalidInputError, match="line 3"):
        await b.import_(lines, strict=True)
    result = await b.import_(lines)
    assert (result.imported, result.invalid) == (1, 1) and result.errors[0].startswith("line 3:")
    assert json.loads(lines[0])["format"] == "memhub-export"


async def test_another_tenant_importing_a_file_first_neither_stops_nor_reaches_the_owners_import(
    remote, tmp_path
):
    """An export made elsewhere (tenant c) reaches tenant b of a server before its owner moves
    it into tenant a there: a's import is whole, and nothing it brought refers into b."""
    a, b, c = remote
    first = await c.memorize("项目用 PostgreSQL 16 做主数据库", user_id="alice")
    await c.correct(
        first.atom_id, "replace", "升级", "项目用 PostgreSQL 17 做主数据库", user_id="alice"
    )
    source = (await c.memorize("上线前忘记备份导致数据丢失", user_id="alice")).atom_id
    await c.govern(source, "derive_lesson", "教训", "上线前先备份数据库", user_id="alice")
    path = tmp_path / "c.jsonl"
    await c.export(path)

    taken = await b.import_(path)
    owned = await a.import_(path)
    assert (owned.imported, owned.skipped) == (taken.imported, taken.skipped) == (4, 0)
    assert (await a.import_(path)).skipped == 4  # safe to repeat

    def records(client_export: io.StringIO) -> list[dict]:
        return [json.loads(line)["memory"] for line in client_export.getvalue().splitlines()[1:]]

    mine, theirs = io.StringIO(), io.StringIO()
    await a.export(mine)
    await b.export(theirs)
    a_records, b_ids = records(mine), {m["id"] for m in records(theirs)}
    a_ids = {m["id"] for m in a_records}
    assert len(a_ids) == 4 and not a_ids & b_ids
    refs = {
        ref
        for m in a_records
        for key in ("chain_root", "supersedes", "superseded_by", "lesson_of", "lessons")
        for ref in (m.get(key) if isinstance(m.get(key), list) else [m.get(key)])
        if ref
    }
    assert refs and refs <= a_ids  # every reference resolves in a's own tenant
    latest = (await a.recall("PostgreSQL", user_id="alice")).atoms[0]
    assert latest.content == "项目用 PostgreSQL 17 做主数据库"
    history = await a.history(latest.atom_id, user_id="alice")
    assert [s.action for s in history.status_history] == ["replace"]
    assert set(history.relations.chain) <= a_ids and len(history.relations.chain) == 2
