"""forget_user: one call erases everything memhub holds about an end user (the right to erasure)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from store_files import files_containing

from memhub import InvalidInputError, MemoryClient, NotFoundError, SyncMemoryClient
from memhub.engine.records import HIDDEN
from memhub.scope import Scope
from memhub.store.base import Match, Where
from memhub.testing import HashEmbedder

GONE = HIDDEN.format(state="tombstoned")
# Words that appear in one user's memories only (lower case: the offline digest quotes terms so).
ALICE, BOB, ACME_ALICE = "zorblax", "quimbly", "vantrix"


def coding_session(answer: str) -> list[dict]:
    """A coding conversation with a tool call: ``add`` keeps a procedure from it."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "app/db.py"}'},
    }
    return [
        {"role": "user", "content": "app/db.py 高并发写入偶发 database is locked"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "conn = sqlite3.connect(db_path)"},
        {"role": "assistant", "content": answer},
    ]


@dataclass
class Remembered:
    raw: list[str]
    superseded: str
    archived: str
    quarantined: str
    sealed: str
    replaced: str
    current: str
    procedure: str
    derived: list[str]
    lesson: str

    def ids(self) -> list[str]:
        single = [self.superseded, self.archived, self.quarantined, self.sealed, self.replaced]
        return [*self.raw, *single, self.current, self.procedure, *self.derived, self.lesson]


async def remember(client: MemoryClient, user: str, word: str) -> Remembered:
    """A user with memories in every layer, status and exposure, through both faces."""
    chat = await client.add(
        messages=[
            {"role": "user", "content": f"我住在 {word} 路 12 号"},
            {"role": "assistant", "content": "好的，记住了"},
            {"role": "user", "content": f"我每天早上在 {word} 咖啡馆喝咖啡"},
        ],
        user_id=user,
    )
    home, coffee = (d.memory_id for d in chat.decisions)
    coding = await client.add(
        messages=coding_session(f"写事务改为 BEGIN IMMEDIATE（{word} 项目）"),
        user_id=user,
        workspace_id="~/code/app",
        branch="main",
    )
    derived = (await client.digest()).derived_ids
    moved = await client.update(home, f"我搬到了 {word} 新城 8 号", user_id=user)
    await client.delete(moved, user_id=user)
    await client.govern(coffee, "quarantine", "待核实", user_id=user)
    shop = await client.memorize(f"{word} 书店是我最常去的店", user_id=user)
    # a reason that quotes the memory: the audit log keeps it
    fixed = await client.correct(
        shop.atom_id,
        "replace",
        f"不是 {word} 书店",
        new_content=f"{word} 隔壁的店是我最常去的",
        user_id=user,
    )
    pin = await client.memorize(f"{word} 门禁密码写在便签上", user_id=user)
    lesson = await client.govern(
        pin.atom_id,
        "derive_lesson",
        "门禁密码不该记",
        lesson_content=f"别记 {word} 的门禁密码",
        user_id=user,
    )
    assert derived and coding.procedure_ids and lesson.lesson_atom_id
    return Remembered(
        raw=chat.raw_ids,
        superseded=home,
        archived=moved,
        quarantined=coffee,
        sealed=pin.atom_id,
        replaced=shop.atom_id,
        current=fixed.new_atom_id,
        procedure=coding.procedure_ids[0],
        derived=derived,
        lesson=lesson.lesson_atom_id,
    )


def in_tenant(client: MemoryClient, tenant: str) -> MemoryClient:
    """Another tenant's client on the same engine, as the REST service makes one per API key."""
    settings = client.settings.model_copy(update={"tenant": tenant})
    return MemoryClient(settings=settings, engine=client.engine, scope=Scope(tenant=tenant))


@dataclass
class World:
    client: MemoryClient
    acme: MemoryClient
    alice: Remembered
    store: Path


@pytest.fixture
async def world(tmp_path) -> World:
    """alice and bob in the default tenant and another alice in tenant "acme", on one dual-mode
    store.
    """
    store = tmp_path / "store"
    async with MemoryClient(
        mode="dual", storage_dir=store, embed=HashEmbedder(), cwd=tmp_path
    ) as client:
        acme = in_tenant(client, "acme")
        alice = await remember(client, "alice", ALICE)
        await remember(client, "bob", BOB)
        await remember(acme, "alice", ACME_ALICE)
        yield World(client, acme, alice, store)


async def everything_of(client: MemoryClient, user: str, word: str) -> dict:
    """What a user of the SDK can see of ``user``."""
    return {
        "search": (
            await client.search(word, user_id=user, procedure_limit=10, derived_context_limit=10)
        ).memories.all(),
        "turns": (await client.search_conversation(word, user_id=user)).turns,
        "list": await client.list(user_id=user, include_history=True),
        "recall": (await client.recall(word, user_id=user)).atoms,
    }


async def records_of(client: MemoryClient, tenant: str, user: str) -> int:
    where = Where(must=(Match("tenant", tenant), Match("user_id", user)))
    return await client.engine.store.count("memories", where)


async def test_every_memory_of_the_user_is_gone_from_every_read(world):
    client, alice = world.client, world.alice
    assert all((await everything_of(client, "alice", ALICE)).values())
    held = await records_of(client, "local", "alice")
    snapshot = (await client.stats()).snapshot_version

    result = await client.forget_user("alice")

    assert (result.user_id, result.tombstoned) == ("alice", held)
    assert (await client.stats()).snapshot_version == snapshot + 1
    assert await everything_of(client, "alice", ALICE) == {
        "search": [],
        "turns": [],
        "list": [],
        "recall": [],
    }
    for memory_id in alice.ids():
        # the user's id is erased too: asked as alice, her memories are as if never written
        with pytest.raises(NotFoundError):
            await client.get(memory_id, user_id="alice")
        item = await client.get(memory_id)
        assert (item.content, item.procedure, item.metadata) == (GONE, None, {}), item.layer
    history = await client.history(alice.current)
    assert history.current.content == GONE
    assert history.exposure_history[-1].reason == "forget_user"
    # the reason given to correct quoted the memory: it is not kept either
    assert all(ALICE not in (step.reason or "") for step in history.status_history)


async def test_other_users_and_other_tenants_keep_their_memories(world):
    client, acme = world.client, world.acme
    bob_before = await everything_of(client, "bob", BOB)
    acme_before = await everything_of(acme, "alice", ACME_ALICE)

    assert (await client.forget_user("alice")).tombstoned > 0

    assert await everything_of(client, "bob", BOB) == bob_before
    assert await everything_of(acme, "alice", ACME_ALICE) == acme_before
    assert all(bob_before.values()) and all(acme_before.values())


async def test_a_second_call_erases_nothing(world):
    client = world.client
    assert (await client.forget_user("alice")).tombstoned > 0
    snapshot = (await client.stats()).snapshot_version
    assert (await client.forget_user("alice")).tombstoned == 0
    assert (await client.stats()).snapshot_version == snapshot


@pytest.mark.parametrize("user_id", ["", "   ", None])
async def test_a_missing_user_id_is_refused_and_changes_nothing(world, user_id):
    client = world.client
    before = await everything_of(client, "alice", ALICE)
    snapshot = (await client.stats()).snapshot_version
    with pytest.raises(InvalidInputError, match="user_id"):
        await client.forget_user(user_id)
    assert await everything_of(client, "alice", ALICE) == before
    assert (await client.stats()).snapshot_version == snapshot


async def test_app_id_narrows_to_one_app(client):
    kept = await client.add(content="我最爱的编程语言是 Rust", user_id="alice", app_id="tutor")
    await client.add(content="我住在上海", user_id="alice", app_id="travel")

    assert (
        await client.forget_user("alice", app_id="travel")
    ).tombstoned == 2  # the raw record and the fact

    assert await client.list(user_id="alice", app_ids=["travel"], include_history=True) == []
    assert [m.id for m in await client.list(user_id="alice", app_ids=["tutor"])] == [
        kept.decisions[0].memory_id
    ]
    assert (await client.forget_user("alice")).tombstoned == 2


async def test_the_users_pending_digest_scopes_are_dropped(world):
    client = world.client
    await client.add(content=f"周末也去 {ALICE} 咖啡馆", user_id="alice")
    await client.add(content=f"周末也去 {BOB} 咖啡馆", user_id="bob")
    await client.forget_user("alice")
    assert (await client.digest()).processed == 1  # bob's scope only


def test_the_sync_client_forgets_too(tmp_path):
    with SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path) as client:
        client.add(content="我住在上海", user_id="alice")
        assert client.forget_user("alice").tombstoned == 2
        assert client.list(user_id="alice", include_history=True) == []


@pytest.mark.slow
async def test_after_purge_no_file_holds_the_users_text(world):
    client = world.client
    needle = ALICE.encode()
    assert files_containing(world.store, needle), "alice's text should be on disk before"
    await client.forget_user("alice")
    await client.purge()
    assert files_containing(world.store, needle) == []
    assert files_containing(world.store, BOB.encode()) and files_containing(
        world.store, ACME_ALICE.encode()
    )
