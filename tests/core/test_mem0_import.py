"""``import_(..., from_="mem0")``: a store made by mem0 itself (tests/fixtures/mem0/make_fixture.py)
comes over as fact chains with mem0's scopes, versions and times; deleted memories stay out."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from ulid import ULID

from memhub import InvalidInputError, NotFoundError
from memhub.cli import main
from memhub.testing.offline import use_hash_embedder

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mem0" / "store"
COFFEE = str(ULID.from_uuid(uuid.UUID("61a26a85-5cb0-4945-a7b7-191f616e4248")))  # updated once


@pytest.fixture
def mem0_store(tmp_path):
    copy = tmp_path / "mem0"
    shutil.copytree(FIXTURE, copy)
    return copy


async def test_memories_become_fact_chains_with_mem0_scopes_and_times(client, mem0_store):
    result = await client.import_(mem0_store, from_="mem0")
    assert (result.imported, result.invalid, result.embedded) == (5, 0, 5)
    current = {m.content: m for m in await client.list(user_id="alice")}
    assert set(current) == {
        "Likes black coffee in the morning",
        "Lives in Shanghai",
        "Prefers concise answers",
        "Asked about the refund for order 1234",
    }
    assert current["Prefers concise answers"].agent_id == "support-bot"
    assert current["Asked about the refund for order 1234"].session_id == "session-42"
    assert {m.layer for m in current.values()} == {"fact"}
    coffee = current["Likes black coffee in the morning"]
    assert coffee.id == COFFEE and coffee.metadata["role"] == "user"
    history = await client.history(COFFEE)
    tea = history.relations.chain[0]
    assert history.relations.chain == [tea, COFFEE] and history.relations.supersedes == [tea]
    old = await client.history(tea)
    assert (
        old.current.content == "Likes green tea in the morning"
        and old.current.status == "superseded"
    )
    assert (
        old.current.created_at == "2026-12-01T13:44:52.467Z"
        and coffee.created_at == "2026-12-01T13:44:52.709Z"
    )
    assert [(s.action, s.to) for s in old.status_history] == [
        ("created", "active"),
        ("replace", "superseded"),
    ]
    # valid time is mem0's: the tea held until the coffee replaced it
    assert (old.current.valid_from, old.current.valid_to) == (
        "2026-12-01T13:44:52.467Z",
        "2026-12-01T13:44:52.709Z",
    )
    assert coffee.valid_from == "2026-12-01T13:44:52.709Z" and coffee.valid_to is None
    then = await client.list(user_id="alice", as_of="2026-12-01T13:44:52.600Z")
    assert "Likes green tea in the morning" in [m.content for m in then]
    found = await client.search("coffee in the morning", user_id="alice")
    assert found.memories.all()[0].id == COFFEE
    assert (
        await client.list(user_id="bob", include_history=True) == []
    )  # deleted: not even its old text

    again = await client.import_(mem0_store, from_="mem0")
    assert (again.imported, again.skipped) == (0, 5)


async def test_deleted_memories_come_over_archived_only_when_asked(client, mem0_store):
    initech = str(ULID.from_uuid(uuid.UUID("91a16dcf-ccf6-4d09-8c88-892bc0bc2af8")))  # its ADD row
    await client.import_(mem0_store, from_="mem0")
    with pytest.raises(NotFoundError):
        await client.history(initech)
    result = await client.import_(mem0_store, from_="mem0", include_deleted=True)
    assert (result.imported, result.skipped) == (1, 5)
    gone = await client.history(initech)
    assert (gone.current.content, gone.current.status) == ("Works at Initech", "archived")
    assert [s.action for s in gone.status_history] == ["created", "delete"]
    # mem0's history keeps no user for a deleted memory: it comes over unscoped
    assert await client.list(user_id="bob", include_history=True) == []


async def test_a_folder_that_is_not_a_mem0_store_is_a_clear_error(client, tmp_path):
    with pytest.raises(InvalidInputError, match="no Qdrant local store"):
        await client.import_(tmp_path, from_="mem0")


def test_cli_import_from_mem0(mem0_store, tmp_path, monkeypatch, capsys):
    use_hash_embedder(monkeypatch)
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "store")
    assert main(["--storage-dir", store, "import", "--from", "mem0", str(mem0_store), "-q"]) == 0
    assert capsys.readouterr().out.startswith("imported 5, already there 0")
    assert main(["--storage-dir", store, "--json", "recall", "Shanghai", "--user-id", "alice"]) == 0
    assert "Lives in Shanghai" in capsys.readouterr().out
