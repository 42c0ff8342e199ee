"""Export and import: a round trip answers every read alike; import is idempotent, resumable,
redacts secrets, re-embeds for another embedder and reports bad lines by number."""

from __future__ import annotations

import gc
import io
import json
import os
import signal

import pytest
from store_files import files_containing

from memhub import InvalidInputError, MemHubError, MemoryClient, cpu
from memhub.engine.read import browse
from memhub.engine.transfer import transfer
from memhub.ids import new_id, to_point_id
from memhub.progress import Progress
from memhub.store import facets
from memhub.store.base import StoredPoint, every
from memhub.store.edge import EdgeStore
from memhub.store.facets import Layout
from memhub.store.schema import INDEXES
from memhub.testing import HashEmbedder

QUERIES = ("数据库", "PostgreSQL", "编程语言", "上海", "部署流程", "password")


class OtherEmbedder(HashEmbedder):
    name = "another/model"


async def _populate(c: MemoryClient) -> dict[str, str]:
    """A store with every kind of record: chains, negation, every exposure, a lesson, raw turns."""
    ids = {}
    pg = await c.memorize("项目用 PostgreSQL 16 做主数据库", user_id="alice")
    ids["replaced"] = pg.atom_id
    ids["current"] = (
        await c.correct(
            pg.atom_id, "replace", "升级了", "项目用 PostgreSQL 17 做主数据库", user_id="alice"
        )
    ).new_atom_id
    ids["negated"] = (await c.memorize("部署流程需要人工审批", user_id="alice")).atom_id
    await c.correct(ids["negated"], "negate", "流程改了", user_id="alice")
    ids["sealed"] = (await c.memorize("alice 的身份证号写在 notes.txt 里", user_id="alice")).atom_id
    ids["lesson_source"] = (await c.memorize("上线前忘记备份导致数据丢失", user_id="alice")).atom_id
    ids["lesson"] = (
        await c.govern(
            ids["lesson_source"], "derive_lesson", "教训", "上线前先备份数据库", user_id="alice"
        )
    ).lesson_atom_id
    ids["tombstoned"] = (await c.memorize("bob 住在上海浦东", user_id="bob")).atom_id
    await c.govern(ids["sealed"], "seal", "个人信息")
    await c.govern(ids["tombstoned"], "tombstone", "用户要求删除")
    ids["quarantined"] = (await c.memorize("PostgreSQL 的备库在杭州", user_id="alice")).atom_id
    await c.govern(ids["quarantined"], "quarantine", "待核实")
    written = await c.add(
        messages=[
            {"role": "user", "content": "我最爱的编程语言是 Java"},
            {"role": "assistant", "content": "好的，记住了"},
        ],
        user_id="alice",
    )
    ids["raw"] = written.raw_ids[0]
    ids["profile"] = written.decisions[0].memory_id
    return ids


async def _answers(c: MemoryClient, ids: dict[str, str]) -> dict:
    out: dict = {}
    for q in QUERIES:
        out["search", q] = (await c.search(q, user_id="alice")).model_dump()
        out["recall", q] = (await c.recall(q, user_id="alice")).model_dump()
        out["conversation", q] = (await c.search_conversation(q, user_id="alice")).model_dump()
    for name, atom in ids.items():
        out["history", name] = (await c.history(atom)).model_dump()
    out["list"] = [m.model_dump() for m in await c.list(user_id="alice", include_history=True)]
    stats = (await c.stats()).model_dump()
    stats.pop("snapshot_version")
    out["stats"] = stats
    return out


@pytest.fixture(params=["in one process", "with a worker process"])
def piped(request, monkeypatch):
    """An import test runs both ways: a short import in the importing process, a long one
    (``transfer.PIPED`` lines) with its batches prepared in a worker process."""
    monkeypatch.setattr(transfer, "PIPED", 0 if request.param == "with a worker process" else 10**9)
    return request.param


@pytest.fixture
async def source(tmp_path):
    async with MemoryClient(
        storage_dir=tmp_path / "source", embed=HashEmbedder(), cwd=tmp_path
    ) as c:
        ids = await _populate(c)
        yield c, ids, await _answers(c, ids)


@pytest.mark.parametrize("include_vectors", [False, True])
@pytest.mark.usefixtures("piped")
async def test_round_trip_into_an_empty_store_answers_alike(source, tmp_path, include_vectors):
    c, ids, before = source
    path = tmp_path / "memories.jsonl"
    result = await c.export(path, include_vectors=include_vectors)
    lines = path.read_text().splitlines()
    assert result.exported == len(lines) - 1 == 11
    embedder = HashEmbedder()
    async with MemoryClient(storage_dir=tmp_path / "copy", embed=embedder, cwd=tmp_path) as copy:
        embedder.calls = 0
        imported = await copy.import_(path)
        assert (imported.imported, imported.skipped, imported.invalid) == (11, 0, 0)
        # vectors in the file, same embedder: nothing is embedded again
        assert (embedder.calls == 0) is include_vectors
        assert await _answers(copy, ids) == before


async def test_governed_text_never_leaves(source, tmp_path):
    c, ids, _ = source
    out = io.StringIO()
    await c.export(out, include_vectors=True)
    text = out.getvalue()
    assert "身份证" not in text and "浦东" not in text
    lines = {json.loads(line)["id"]: json.loads(line) for line in text.splitlines()[1:]}
    sealed, tomb = lines[ids["sealed"]], lines[ids["tombstoned"]]
    assert (
        sealed["memory"]["exposure"] == "sealed"
        and "content" not in sealed["memory"]
        and "vectors" not in sealed
    )
    assert set(tomb["memory"]) <= {"id", "tenant", "created_at", "updated_at", "exposure", "rev"}
    assert [e["action"] for e in sealed["events"]] == ["memorize", "seal"]
    lesson = lines[ids["lesson"]]["memory"]
    assert lesson["lesson_of"] == [ids["lesson_source"]] and lines[ids["lesson_source"]]["memory"][
        "lessons"
    ] == [ids["lesson"]]


async def test_export_filters_by_user_and_app(source):
    c, ids, _ = source
    out = io.StringIO()
    result = await c.export(out, user_id="bob")
    assert result.exported == 0  # bob's only memory is a tombstone, which keeps no user
    out = io.StringIO()
    await c.export(out, user_id="alice", app_id="default")
    exported = {json.loads(line)["id"] for line in out.getvalue().splitlines()[1:]}
    assert ids["current"] in exported and ids["tombstoned"] not in exported
    assert json.loads(out.getvalue().splitlines()[0])["filters"] == {
        "user_id": "alice",
        "app_id": "default",
    }


@pytest.mark.usefixtures("piped")
async def test_import_twice_adds_nothing_and_an_interrupted_import_resumes(
    source, tmp_path, monkeypatch
):
    c, ids, before = source
    path = tmp_path / "m.jsonl"
    await c.export(path)
    monkeypatch.setattr(transfer, "BATCH", 5)

    class CtrlC(Progress):
        def advance(self, n: int = 1) -> None:
            if n > 1:  # a batch was written (the header line is one)
                raise KeyboardInterrupt

    async with MemoryClient(
        storage_dir=tmp_path / "copy", embed=HashEmbedder(), cwd=tmp_path
    ) as copy:
        with pytest.raises(KeyboardInterrupt):
            await copy.import_(path, progress=CtrlC())  # stops after the first batch of 5
        assert (await copy.stats()).atoms == 5
        resumed = await copy.import_(path)
        assert (resumed.imported, resumed.skipped) == (6, 5)
        again = await copy.import_(path)
        assert (again.imported, again.skipped) == (0, 11)
        assert await _answers(copy, ids) == before


async def test_a_worker_process_that_dies_mid_import_says_so_and_the_import_resumes(
    source, tmp_path, monkeypatch
):
    """A long import prepares its batches in a worker process; killed (out of memory, say),
    the import stops with a clear error, every batch in the store is whole, and running
    the import again completes it."""
    c, ids, before = source
    path = tmp_path / "m.jsonl"
    await c.export(path)
    monkeypatch.setattr(transfer, "PIPED", 0)
    monkeypatch.setattr(transfer, "BATCH", 3)
    workers: list[cpu.Worker] = []

    class Watched(cpu.Worker):
        def __init__(self) -> None:
            super().__init__()
            workers.append(self)

    monkeypatch.setattr(cpu, "Worker", Watched)

    class Killer(Progress):
        def advance(self, n: int = 1) -> None:
            if n > 1:  # a batch was written: the worker is killed, as the kernel would
                os.kill(workers[-1].process.pid, signal.SIGKILL)

    async with MemoryClient(
        storage_dir=tmp_path / "copy", embed=HashEmbedder(), cwd=tmp_path
    ) as copy:
        with pytest.raises(MemHubError, match="worker process ended .* run the import again"):
            await copy.import_(path, progress=Killer())
        written = (await copy.stats()).atoms
        assert written in (3, 6)  # whole batches only
        assert workers[-1].process.returncode == -signal.SIGKILL
        resumed = await copy.import_(path)
        assert (resumed.imported, resumed.skipped) == (11 - written, written)
        assert await _answers(copy, ids) == before


@pytest.mark.usefixtures("piped")
async def test_bad_lines_are_reported_by_number_and_skipped_or_stop_a_strict_import(
    source, tmp_path
):
    c, _, _ = source
    out = io.StringIO()
    await c.export(out)
    lines = out.getvalue().splitlines()
    lines[3] = lines[3][:40]  # truncated JSON on line 4
    broken = json.loads(lines[5])
    broken["memory"]["status"] = "exploded"  # line 6
    lines[5] = json.dumps(broken)
    async with MemoryClient(
        storage_dir=tmp_path / "strict", embed=HashEmbedder(), cwd=tmp_path
    ) as copy:
        with pytest.raises(InvalidInputError, match="line 4: not JSON"):
            await copy.import_(lines, strict=True)
        assert (await copy.stats()).atoms == 0
        result = await copy.import_(lines)
    assert (result.imported, result.invalid) == (9, 2)
    assert result.errors[0].startswith("line 4: not JSON")
    assert result.errors[1] == "line 6: unknown status 'exploded'"


@pytest.mark.usefixtures("piped")
async def test_secrets_are_redacted_on_the_way_in_and_their_vectors_not_reused(source, tmp_path):
    c, _, _ = source
    out = io.StringIO()
    await c.export(out, include_vectors=True)
    header, first, *_ = out.getvalue().splitlines()
    record = json.loads(first)
    record["memory"]["content"] = "生产库连接 postgres://admin:s3cretPass@db.internal:5432/app"
    embedder = HashEmbedder()
    async with MemoryClient(storage_dir=tmp_path / "copy", embed=embedder, cwd=tmp_path) as copy:
        result = await copy.import_([header, json.dumps(record, ensure_ascii=False)])
        assert result.embedded == 1
        history = await copy.history(record["id"])
    assert "s3cretPass" not in history.current.content and "[REDACTED:" in history.current.content


@pytest.mark.usefixtures("piped")
async def test_another_embedder_says_so_and_re_embeds(source, tmp_path):
    c, ids, before = source
    path = tmp_path / "m.jsonl"
    await c.export(path, include_vectors=True)
    notes = []

    class Notes(Progress):
        def note(self, message: str) -> None:
            notes.append(message)

    async with MemoryClient(
        storage_dir=tmp_path / "other", embed=OtherEmbedder(), cwd=tmp_path
    ) as copy:
        result = await copy.import_(path, progress=Notes())
        assert result.embedded == 8  # all but the two sealed and the tombstoned memory
        assert (
            "re-embedding" in notes[0]
            and "memhub-testing/hash" in notes[0]
            and "another/model" in notes[0]
        )
        hits = await copy.recall("PostgreSQL 17", user_id="alice")
        assert hits.atoms[0].atom_id == ids["current"]


async def test_an_interrupted_export_leaves_no_file_and_the_store_as_it_was(source, tmp_path):
    c, ids, before = source

    class CtrlC(Progress):
        def advance(self, n: int = 1) -> None:
            raise KeyboardInterrupt

    path = tmp_path / "m.jsonl"
    with pytest.raises(KeyboardInterrupt):
        await c.export(path, progress=CtrlC())
    assert list(tmp_path.glob("m.jsonl*")) == []
    assert await _answers(c, ids) == before
    await c.export(path)
    assert len(path.read_text().splitlines()) == 12


@pytest.mark.usefixtures("piped")
async def test_an_import_never_overwrites_what_the_store_holds(source, tmp_path):
    c, ids, _ = source
    out = io.StringIO()
    await c.export(out)
    header, *lines = out.getvalue().splitlines()
    forged = json.loads(lines[0])
    forged["memory"]["content"] = "被改写的内容"
    steps_before = (await c.history(forged["id"])).status_history
    newcomer = json.loads(lines[1])
    newcomer["id"] = newcomer["memory"]["id"] = new_id()  # a new memory, carrying a known event id
    newcomer["events"] = [{**forged["events"][0], "atom_id": newcomer["id"], "reason": "forged"}]
    result = await c.import_([header, json.dumps(forged), json.dumps(newcomer)])
    assert (result.imported, result.skipped) == (1, 1)
    history = await c.history(forged["id"])
    assert history.current.content != "被改写的内容" and history.status_history == steps_before
    assert (await c.history(newcomer["id"])).status_history == []


@pytest.mark.usefixtures("piped")
async def test_a_memory_named_twice_is_imported_once_as_its_first_line_says(
    source, tmp_path, monkeypatch
):
    """The same id in the next batch, in the same batch, and the same line again: the first
    line wins, the others are skipped (and a line the store holds is never redacted again)."""
    c, _, _ = source
    out = io.StringIO()
    await c.export(out)
    header, first, second, third, *_ = out.getvalue().splitlines()
    again = json.loads(first)
    again["memory"]["content"] = "同一个 id 的另一行"
    monkeypatch.setattr(transfer, "BATCH", 2)
    again = json.dumps(again, ensure_ascii=False, separators=(",", ":"))  # as an export writes
    lines = [header, first, second, again, third, first, again]
    async with MemoryClient(
        storage_dir=tmp_path / "copy", embed=HashEmbedder(), cwd=tmp_path
    ) as copy:
        result = await copy.import_(lines)
        assert (result.imported, result.skipped) == (3, 3)
        kept = await copy.history(json.loads(first)["id"])
        assert kept.current.content == json.loads(first)["memory"]["content"]


@pytest.mark.usefixtures("piped")
async def test_turns_come_back_indexed_with_their_context_whatever_the_line_order(
    client, tmp_path, monkeypatch
):
    monkeypatch.setattr(transfer, "BATCH", 1)  # a context turn in a later batch
    written = await client.add(
        messages=[
            {"role": "user", "content": "What's the name of your dog?"},
            {"role": "assistant", "content": "He's called Rex."},
            {"role": "user", "content": "Cute! Mine is a cat."},
        ],
        user_id="alice",
    )
    path = tmp_path / "turns.jsonl"
    await client.export(path)
    header, *memories = path.read_text().splitlines()
    # the turn after its context in the file, and before it: both indexed as written
    path.write_text("\n".join([header, *reversed(memories)]) + "\n")
    source = {
        p.id: p
        for p in await client.engine.store.retrieve(
            "memories", [to_point_id(i) for i in written.raw_ids], with_vectors=True
        )
    }
    async with MemoryClient(
        storage_dir=tmp_path / "copy", embed=HashEmbedder(), cwd=tmp_path
    ) as copy:
        await copy.import_(path)
        for point in await copy.engine.store.retrieve("memories", list(source), with_vectors=True):
            assert point.sparse == source[point.id].sparse
            assert point.dense == pytest.approx(source[point.id].dense)


async def test_an_export_leaves_out_store_items_and_half_written_versions(source):
    c, ids, _ = source
    tenant = c.scope.tenant
    left_out = {
        new_id(): {"layer": "item", "key": "k", "value": "{}"},
        new_id(): {"layer": "fact", "status": "pending", "content": "half written"},
    }
    await c.engine.store.upsert(
        "memories",
        [
            StoredPoint(
                to_point_id(atom),
                {"id": atom, "tenant": tenant, "user_id": "alice", "created_at": "2024-01-01", **p},
            )
            for atom, p in left_out.items()
        ],
    )
    out = io.StringIO()
    result = await c.export(out, user_id="alice")
    exported = {json.loads(line)["id"] for line in out.getvalue().splitlines()[1:]}
    assert ids["current"] in exported and not exported & left_out.keys()
    assert result.exported == len(exported)


@pytest.mark.usefixtures("piped")
async def test_an_import_bundles_the_audit_steps_and_every_reader_of_them_unfolds_them(
    source, either, storage_dir
):
    """The steps an import brings are written a bundle of many per point (``engine.audit``):
    history, the activity chart and a second export read them as before, and sealing an
    imported memory rewrites its reasons inside the bundle (and purge leaves no copy on disk)
    while the reasons of the other memories in the same bundle stay."""
    c, ids, before = source
    out = io.StringIO()
    exported = await c.export(out)
    imported = await either.import_(out.getvalue().splitlines())
    assert imported.imported == exported.exported == 11
    assert await either.engine.store.count("events") < exported.events
    for name in ("replaced", "current", "negated", "lesson_source"):
        assert (await either.history(ids[name])).model_dump() == before["history", name]
    tenant = either.scope.tenant
    assert await browse.activity(either.engine, tenant) == await browse.activity(c.engine, tenant)
    again = io.StringIO()
    assert (await either.export(again)).events == exported.events
    lines = [json.loads(line) for line in again.getvalue().splitlines()[1:]]
    assert lines == [json.loads(line) for line in out.getvalue().splitlines()[1:]]

    await either.govern(ids["negated"], "seal", "不再需要")
    assert "流程改了" in str(before["history", "negated"])
    assert "流程改了" not in str((await either.history(ids["negated"])).model_dump())
    kept = (await either.history(ids["current"])).status_history
    assert [s.reason for s in kept] == [
        s["reason"] for s in before["history", "current"]["status_history"]
    ]
    stored = [p.payload for p in await every(either.engine.store, "events")]
    assert "流程改了" not in json.dumps(stored, ensure_ascii=False)
    if isinstance(either.engine.store, EdgeStore):
        await either.purge()
        assert files_containing(storage_dir, "流程改了".encode()) == []


@pytest.mark.usefixtures("piped")
async def test_a_transfer_pauses_the_cycle_collector_and_gives_it_back(source, tmp_path):
    """Export and import hold thousands of fresh dicts at once, which set off full
    collections; the collector is paused while they run and enabled again after, even when
    interrupted, and a collector the caller disabled stays disabled."""
    c, _, _ = source
    seen: list[bool] = []

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            seen.append(gc.isenabled())
            return super().write(text)

    out = Out()
    await c.export(out)
    assert seen and not any(seen) and gc.isenabled()

    class Watch(Progress):
        def advance(self, n: int = 1) -> None:
            seen.append(gc.isenabled())
            if n > 1 and interrupt:
                raise KeyboardInterrupt

    lines = out.getvalue().splitlines(keepends=True)
    async with MemoryClient(
        storage_dir=tmp_path / "copy", embed=HashEmbedder(), cwd=tmp_path
    ) as copy:
        seen.clear()
        interrupt = True
        with pytest.raises(KeyboardInterrupt):
            await copy.import_(lines, progress=Watch())
        assert seen and not any(seen) and gc.isenabled()
        interrupt = False
        gc.disable()
        try:
            assert (await copy.import_(lines, progress=Watch())).skipped == 11  # all in
            assert not gc.isenabled()
        finally:
            gc.enable()


def test_a_payload_laid_out_elsewhere_is_written_as_it_is_or_laid_out_again():
    """An import's worker process lays payloads out for the shard (``facets.Laid``); a shard
    whose layout changed meanwhile (``compact``) gets them laid out in its own."""
    payload = {"id": new_id(), "tenant": "t", "user_id": "u", "layer": "fact", "content": "x"}
    today, older = Layout.of(INDEXES["memories"]), Layout.of(INDEXES["memories"], in_doc=False)
    laid = facets.Laid(facets.stored(payload, today), today)
    assert facets.stored(laid, today) is laid
    assert facets.stored(laid, older) == facets.stored(payload, older) != laid


async def test_an_export_reads_the_store_ahead_and_a_store_opened_afresh_exports_the_same_bytes(
    tmp_path,
):
    """An export of most of the store first reads its files ahead (``MemoryStore.prefetch``:
    Qdrant Edge drops a shard's pages from the cache when it opens it); a user's export does
    not. It changes no byte: the same store opened in a new ``EdgeStore`` exports the same
    lines, with and without vectors."""
    exports: dict[tuple[str, bool], list[str]] = {}
    asked: list[tuple[str, bool]] = []
    for opening in ("first", "again"):
        async with MemoryClient(
            storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path
        ) as c:
            if opening == "first":
                await _populate(c)
            store = c.engine.store
            assert isinstance(store, EdgeStore)
            read_ahead = store.prefetch

            async def prefetch(collection, *, vectors=False, read_ahead=read_ahead):
                asked.append((collection, vectors))
                await read_ahead(collection, vectors=vectors)

            store.prefetch = prefetch  # type: ignore[method-assign]  # records, then reads
            for vectors in (False, True):
                out = io.StringIO()
                await c.export(out, include_vectors=vectors)
                exports[opening, vectors] = out.getvalue().splitlines()[1:]
            asked.append(("user export", False))
            await c.export(io.StringIO(), user_id="alice")
    memories, events = ("memories", False), ("events", False)
    once = [memories, events, ("memories", True), events, ("user export", False)]
    assert asked == once + once
    for vectors in (False, True):
        assert len(exports["first", vectors]) == 11
        assert exports["again", vectors] == exports["first", vectors]
