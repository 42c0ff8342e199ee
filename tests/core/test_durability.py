"""What must survive a crash, and what must not survive a purge."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter

import pytest
from store_files import files_containing

from memhub import ConflictError, EmbedderMismatchError, MemoryClient
from memhub.testing import HashEmbedder

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from memhub import MemoryClient
    from memhub.testing import HashEmbedder

    async def main():
        async with MemoryClient(storage_dir=sys.argv[1], embed=HashEmbedder(), cwd=sys.argv[2]) as \
c:
            head = (await c.memorize("chain head version 0")).atom_id
            print("ACK", head, flush=True)
            i = 0
            while True:
                i += 1
                r = await c.memorize(f"independent fact number {i} about topic {i * 7}")
                print("ACK", r.atom_id, flush=True)
                head = (await c.correct(head, "replace", "bump", new_content=f"chain head version \
{i}")).new_atom_id
                print("ACK", head, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [7, 40])
async def test_sigkill_mid_write_loses_no_acknowledged_write(tmp_path, kill_after):
    store = tmp_path / "store"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(store), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ,
    )
    acked = []
    for line in proc.stdout:
        if line.startswith("ACK"):
            acked.append(line.split()[1])
        if len(acked) >= kill_after:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        found = {p["id"] for p in await client.engine.get_many(acked)}
        assert set(acked) <= found
        points, _ = await client.engine.store.scroll("memories", None, limit=10_000)
        active_per_chain = Counter(
            p.payload["chain_root"] for p in points if p.payload["status"] == "active"
        )
        assert max(active_per_chain.values()) == 1
        assert not [p for p in points if p.payload["status"] == "pending"]
        hits = (await client.recall("chain head version")).atoms
        assert sum("chain head" in a.content for a in hits) == 1


@pytest.mark.slow
async def test_purge_leaves_no_byte_of_sealed_content_on_disk(tmp_path):
    secret = "zx-unique-sealed-value-8841"
    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        for i in range(30):
            await client.memorize(f"ordinary fact {i} worth keeping")
        # a location, not a credential phrase: "passphrase is X" would be redacted before storing
        leak = await client.memorize(f"the vault location is {secret} keep it")
        written = await client.add(content=f"my vault location is {secret}", user_id="alice")
        await client.govern(
            leak.atom_id, "derive_lesson", "secret", lesson_content="never store vault locations"
        )
        # sealing the extracted fact also seals the raw turn it came from
        await client.govern(written.decisions[0].memory_id, "seal", "secret", user_id="alice")
        assert (await client.search_conversation("vault location", user_id="alice")).turns == []
        assert files_containing(store, secret.encode()), (
            "the secret should still be on disk before purge"
        )
        await client.purge()
        assert files_containing(store, secret.encode()) == []
        kept = [
            a
            for a in (await client.recall("ordinary fact", limit=50)).atoms
            if a.content.startswith("ordinary")
        ]
        assert len(kept) == 30
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        assert (await client.stats()).atoms >= 33
    assert files_containing(store, secret.encode()) == []


@pytest.mark.slow
async def test_purge_erases_what_was_extracted_from_a_sealed_turn(tmp_path):
    secret = "zx-unique-lineage-value-5127"
    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        written = await client.add(
            messages=[
                {
                    "role": "user",
                    "content": f"保险柜暗号是 {secret}。我把 {secret} 写在了书房的便签上。",
                },
                {"role": "user", "content": "我在字节跳动工作"},
            ],
            user_id="alice",
        )
        assert sum(secret in d.candidate for d in written.decisions) == 2
        await client.govern(written.raw_ids[0], "seal", "含保险柜暗号", user_id="alice")
        assert files_containing(store, secret.encode()), (
            "the secret should still be on disk before purge"
        )
        await client.purge()
        assert files_containing(store, secret.encode()) == []
        assert [m.content for m in await client.list(user_id="alice")] == ["我在字节跳动工作"]


@pytest.mark.slow
async def test_purge_leaves_no_reason_or_metadata_of_a_governed_memory_on_disk(tmp_path):
    secret = "zxreasonvalue5531"
    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        old = await client.memorize("the staging vault code is on the wiki")
        new_content = f"the staging vault code is {secret}"
        fixed = await client.correct(old.atom_id, "replace", f"it is {secret} now", new_content)
        await client.correct(fixed.new_atom_id, "demote", f"not sure {secret} still works")
        await client.govern(fixed.new_atom_id, "quarantine", f"{secret} may be live")
        notes = await client.memorize("deploy notes for staging", metadata={"vault_code": secret})
        await client.govern(fixed.new_atom_id, "seal", f"leaked {secret}")
        await client.govern(notes.atom_id, "tombstone", f"the notes held {secret}")
        for atom_id in (old.atom_id, fixed.new_atom_id, notes.atom_id):
            assert secret not in (await client.history(atom_id)).model_dump_json()
        assert files_containing(store, secret.encode()), "still on disk before purge"
        await client.purge()
        assert files_containing(store, secret.encode()) == []


async def test_changing_the_embedder_on_an_existing_store_is_a_clear_error(tmp_path):
    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(dim=64), cwd=tmp_path) as client:
        await client.memorize("a fact")

    class Other(HashEmbedder):
        name = "another-model"

    with pytest.raises(EmbedderMismatchError, match="hash"):
        async with MemoryClient(storage_dir=store, embed=Other(dim=64), cwd=tmp_path) as client:
            pass
    with pytest.raises(EmbedderMismatchError):
        async with MemoryClient(
            storage_dir=store, embed=HashEmbedder(dim=32), cwd=tmp_path
        ) as client:
            pass
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(dim=64), cwd=tmp_path) as client:
        assert (await client.recall("a fact")).atoms[0].content == "a fact"


async def test_recovery_finishes_an_interrupted_replace_with_its_vectors(tmp_path):
    """A crash between 'old superseded' and 'new activated' is finished on the next open."""
    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        old = await client.memorize("项目用 PostgreSQL 16 做主数据库")
        fixed = await client.correct(
            old.atom_id, "replace", "upgrade", new_content="项目用 PostgreSQL 17 做主数据库"
        )
        new = await client.engine.get(fixed.new_atom_id, "local")
        await client.engine.update(new, {"status": "pending"})  # as if killed before phase three
        assert (await client.recall("PostgreSQL")).atoms == []
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        assert [a.atom_id for a in (await client.recall("PostgreSQL")).atoms] == [fixed.new_atom_id]


class Killed(BaseException):
    """The process dying at this point (nothing after it runs)."""


async def test_recovery_finishes_the_audit_step_of_an_interrupted_replace(tmp_path, monkeypatch):
    """A crash after 'old superseded', before the steps were logged, loses no history step."""
    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        old = await client.memorize("项目用 PostgreSQL 16 做主数据库")

        async def die(*args, **kwargs):
            raise Killed

        monkeypatch.setattr(client.engine, "log", die)
        with pytest.raises(Killed):
            await client.correct(
                old.atom_id, "replace", "升级到 17", "项目用 PostgreSQL 17 做主数据库"
            )
        monkeypatch.undo()
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        [new] = (await client.recall("PostgreSQL")).atoms
        old_steps = (await client.history(old.atom_id)).status_history
        new_steps = (await client.history(new.atom_id)).status_history
        assert [(s.action, s.from_, s.to, s.reason) for s in old_steps] == [
            ("memorize", None, "active", None),
            ("replace", "active", "superseded", "升级到 17"),
        ]
        assert [(s.action, s.to, s.reason) for s in new_steps] == [
            ("replace", "active", "升级到 17")
        ]
        assert "replace_step" not in (await client.engine.get(new.atom_id, "local"))


def _fail_on_call(n: int, real):
    """``real``, except that its ``n``-th call raises ``ConflictError`` (a concurrent writer)."""
    calls = 0

    async def flaky(*args, **kwargs):
        nonlocal calls
        calls += 1
        if calls == n:
            raise ConflictError("changed by another writer")
        return await real(*args, **kwargs)

    return flaky


async def test_a_seal_cascade_cut_short_is_finished_on_the_next_open(tmp_path, monkeypatch):
    from memhub.engine import hmg

    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        written = await client.add(
            messages=[{"role": "user", "content": "I live in Lyon"}], user_id="alice"
        )
        fact = written.decisions[0].memory_id
        monkeypatch.setattr(
            hmg, "hide", _fail_on_call(2, hmg.hide)
        )  # the fact hidden, its raw turn not
        with pytest.raises(ConflictError):
            await client.govern(fact, "seal", "private")
        monkeypatch.undo()
        said = await client.search_conversation("Lyon", user_id="alice")
        assert [t.content for t in said.turns] == ["I live in Lyon"]  # half done, as stated
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        assert (await client.search_conversation("Lyon", user_id="alice")).turns == []
        raw = await client.history(written.raw_ids[0])
        assert raw.current.exposure_state == "sealed"


async def test_a_forget_user_cut_short_is_finished_on_the_next_open(tmp_path, monkeypatch):
    from memhub.engine.lifecycle import erase

    store = tmp_path / "store"
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        for text in ("I live in Lyon", "I work at Acme", "I have a cat"):
            await client.add(text, user_id="alice")
        monkeypatch.setattr(erase, "hide", _fail_on_call(3, erase.hide))
        with pytest.raises(ConflictError):
            await client.forget_user("alice")
        monkeypatch.undo()
        assert await client.list(user_id="alice", include_history=True)  # some are left
    async with MemoryClient(storage_dir=store, embed=HashEmbedder(), cwd=tmp_path) as client:
        assert await client.list(user_id="alice", include_history=True) == []
        assert (await client.forget_user("alice")).tombstoned == 0
