"""Backups: backup, wipe, restore gives the same answers; whole under writes; kept N deep."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import time
import uuid

import pytest

from memhub.errors import InvalidInputError
from memhub_server.backup import backup, backups_in, read_manifest, restore

QUERIES = ["数据库", "发布", "编程语言", "住在哪里", "猫"]


async def _fill(service) -> dict[str, str]:
    acme = await service.client("acme")
    beta = await service.client("beta")
    ids = {}
    w = await acme.add("我们的主数据库是 PostgreSQL 16", user_id="u1")
    ids["db"] = w.decisions[0].memory_id
    await acme.add("我最爱的编程语言是 Rust", user_id="u1")
    await acme.add("每周四下午发布到生产环境", user_id="u2")
    ids["db2"] = await acme.update(ids["db"], "我们的主数据库是 PostgreSQL 17", user_id="u1")
    cat = await acme.memorize("我的猫叫年糕", user_id="u1")
    await acme.govern(cat.atom_id, "seal", "the user asked")
    await beta.add("我住在杭州", user_id="u1")
    await beta.memorize("发布窗口是周二", user_id="u9")
    return ids


async def _answers(service) -> dict:
    seen = {}
    for tenant, user in (("acme", "u1"), ("acme", "u2"), ("beta", "u1"), ("beta", "u9")):
        client = await service.client(tenant)
        for query in QUERIES:
            found = await client.search(query, user_id=user)
            # the same memories in the same order; a fused score of tied ranks (a query
            # no word of which is in a memory) may differ by the order ties come back in
            seen[tenant, user, query] = _unscored(found.model_dump(mode="json"))
            recalled = await client.recall(query, user_id=user)
            seen[tenant, user, query, "recall"] = [(a.atom_id, a.content) for a in recalled.atoms]
    return seen


def _unscored(value):
    if isinstance(value, dict):
        return {k: _unscored(v) for k, v in value.items() if k != "score"}
    if isinstance(value, list):
        return [_unscored(v) for v in value]
    return value


async def _export(service, tenant: str) -> list[dict]:
    out = io.StringIO()
    await (await service.client(tenant)).export(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return sorted(lines[1:], key=lambda r: r.get("id", ""))  # the header carries the time


@pytest.fixture
def other_store(scratch, empty_store, copy_store):
    return copy_store(empty_store, scratch / uuid.uuid4().hex / "store")


async def test_backup_wipe_restore_gives_the_same_answers(
    fresh_store, other_store, make_service, tmp_path
):
    service = make_service(fresh_store)
    await service.open()
    try:
        await _fill(service)
        before = await _answers(service)
        exports = {t: await _export(service, t) for t in ("acme", "beta")}
        folder = await backup(service, tmp_path / "backups")
    finally:
        await service.close()
    shutil.rmtree(fresh_store)  # the store is gone

    manifest = read_manifest(folder)
    assert set(manifest["tenants"]) == {"acme", "beta"} and manifest["tenants"]["acme"] >= 5
    restored = make_service(other_store)
    await restored.open()
    try:
        done = await restore(restored, folder)
        assert {t: r.imported for t, r in done.items()} == manifest["tenants"]
        assert all(r.embedded == 0 for r in done.values())  # the vectors came with it
        after = await _answers(restored)
        assert after == before
        # the export round trip: every version, status, exposure and audit step came back
        assert {t: await _export(restored, t) for t in ("acme", "beta")} == exports
        # governed text stays gone
        assert not any("年糕" in json.dumps(v, ensure_ascii=False) for v in after.values())
        # a second restore over the data now there is refused and changes nothing
        with pytest.raises(InvalidInputError, match="already hold memories: acme"):
            await restore(restored, folder)
        assert await _export(restored, "acme") == exports["acme"]
    finally:
        await restored.close()


async def test_one_tenant_alone_and_kept_n_deep(fresh_store, make_service, tmp_path):
    service = make_service(fresh_store)
    await service.open()
    try:
        await _fill(service)
        root = tmp_path / "backups"
        made = [await backup(service, root, tenants=["beta"], keep=2) for _ in range(3)]
        assert backups_in(root) == made[1:]  # the oldest went
        assert read_manifest(made[-1])["tenants"] == {"beta": len(await _export(service, "beta"))}
        assert sorted(p.name for p in made[-1].iterdir()) == ["beta.jsonl", "manifest.json"]
        with pytest.raises(InvalidInputError, match="no tenant acme"):
            await restore(service, made[-1], tenants=["acme"])
    finally:
        await service.close()


async def test_a_backup_taken_under_writes_holds_whole_versions_only(
    fresh_store, make_service, tmp_path
):
    service = make_service(fresh_store)
    await service.open()
    try:
        acme = await service.client("acme")
        first = await acme.add("部署目标是 staging-0", user_id="u1")
        current = first.decisions[0].memory_id
        for i in range(300):  # enough to make each export take a while
            await acme.memorize(f"第 {i} 条部署记录：服务 svc-{i} 在 {i % 24} 点上线", user_id="u2")
        stop = asyncio.Event()
        versions = 0

        async def replace_again() -> None:
            nonlocal current, versions
            while not stop.is_set():
                current = await acme.update(
                    current, f"部署目标是 staging-{versions + 1}", user_id="u1"
                )
                versions += 1

        writer = asyncio.create_task(replace_again())
        await asyncio.sleep(0.05)
        folders = []
        for _ in range(5):
            started = time.monotonic()
            folders.append(await backup(service, tmp_path / "backups"))
            assert time.monotonic() - started < 30
            await asyncio.sleep(0.05)
        stop.set()
        await writer
        assert versions >= 3
        seen: list[int] = []
        for folder in folders:
            text = (folder / "acme.jsonl").read_text()
            lines = [json.loads(x)["memory"] for x in text.splitlines()[1:]]
            chain = [m for m in lines if m["layer"] != "raw" and "部署目标" in m.get("content", "")]
            seen.append(len(chain))
            active = [m for m in chain if m["status"] == "active"]
            assert len(active) == 1, [(m["status"], m["content"]) for m in chain]
        assert seen == sorted(seen) and seen[-1] > seen[0]  # taken while versions were written
    finally:
        await service.close()


async def _count(service, tenant: str) -> int:
    from memhub.engine.read import browse

    await service.open()
    try:
        return await browse.count(service.engine, tenant)
    finally:
        await service.close()


def test_memhub_backup_and_restore_commands(
    fresh_store, other_store, make_service, memhub_main, tmp_path, capsys
):
    async def fill() -> None:
        service = make_service(fresh_store)
        await service.open()
        try:
            await _fill(service)
        finally:
            await service.close()

    asyncio.run(fill())
    root = tmp_path / "backups"
    for _ in range(3):
        assert (
            memhub_main(["--storage-dir", str(fresh_store), "backup", str(root), "--keep", "2"])
            == 0
        )
    printed = capsys.readouterr().out.split()
    assert [str(p) for p in backups_in(root)] == printed[1:]
    assert (
        memhub_main(["--storage-dir", str(other_store), "--tenant", "beta", "restore", str(root)])
        == 0
    )
    assert "restored tenant 'beta'" in capsys.readouterr().err
    held = asyncio.run(_count(make_service(other_store), "beta"))
    assert held == read_manifest(backups_in(root)[-1])["tenants"]["beta"]
    assert asyncio.run(_count(make_service(other_store), "acme")) == 0  # only --tenant's
    assert memhub_main(["--storage-dir", str(other_store), "restore", str(root)]) != 0
    assert "already hold memories: beta" in capsys.readouterr().err
    assert asyncio.run(_count(make_service(other_store), "acme")) == 0  # nothing half-restored
    assert memhub_main(["--storage-dir", str(other_store), "restore", str(tmp_path)]) != 0


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")
async def test_backup_and_restore_on_the_qdrant_server_path(tmp_path):
    """The same round trip over qdrant-client (its local mode, as for a Qdrant server)."""
    from memhub import Settings
    from memhub.store.server import QdrantServerStore
    from memhub.testing import HashEmbedder
    from memhub_server.service import MemoryService

    def server_service() -> MemoryService:
        settings = Settings(storage_dir=str(tmp_path / uuid.uuid4().hex))
        return MemoryService(settings, store=QdrantServerStore(":memory:"), embed=HashEmbedder())

    service = server_service()
    await service.open()
    try:
        await _fill(service)
        before = await _answers(service)
        exports = {t: await _export(service, t) for t in ("acme", "beta")}
        folder = await backup(service, tmp_path / "backups")
    finally:
        await service.close()
    restored = server_service()
    await restored.open()
    try:
        await restore(restored, folder)
        assert await _answers(restored) == before
        assert {t: await _export(restored, t) for t in ("acme", "beta")} == exports
    finally:
        await restored.close()
