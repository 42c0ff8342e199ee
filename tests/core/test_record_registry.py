"""Adapters' record collections: one registered in a test (as an adapter registers its own)
is reached through ``client.records`` and erased by ``forget_user`` by the key it declared,
on both backends; the core names none, and an installed adapter's are known from its entry
point without importing it."""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest

from memhub import MemoryClient
from memhub.errors import InvalidInputError
from memhub.store import schema
from memhub.store.base import IndexSpec, Match, StoredPoint, Where
from memhub.store.server import QdrantServerStore
from memhub.testing import HashEmbedder

HEADS, PARTS = "test_heads", "test_parts"


@pytest.fixture
def registered(monkeypatch):
    """Two collections registered as an adapter would, for this test only: a head naming a
    user ties its ``conv_id``; every head and part of that conversation goes."""
    monkeypatch.setattr(schema, "_REGISTERED", dict(schema.registered()))
    schema.register_collection(
        HEADS,
        IndexSpec(keyword=("conv_id", "kind", "user_id", "app_id"), hot=("tenant",)),
        erase=schema.ErasedBy(unit="conv_id", marks=(("kind", "head"),), reaches=(PARTS,)),
    )
    schema.register_collection(PARTS, IndexSpec(keyword=("conv_id",), hot=("tenant",)))


def _pid() -> str:
    return str(uuid.uuid4())


@pytest.fixture(params=["edge", "qdrant-local"])
async def client(request, tmp_path, registered):
    if request.param == "edge":
        made = MemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path)
    else:
        made = MemoryClient(store=QdrantServerStore(":memory:"), embed=HashEmbedder(), cwd=tmp_path)
    async with made:
        yield made


async def _count(client: MemoryClient, collection: str, conv: str) -> int:
    return await client.records.count(collection, Where(must=(Match("conv_id", conv),)))


async def test_forget_user_erases_a_registered_collection_by_its_key(client):
    heads = [
        StoredPoint(_pid(), {"kind": "head", "conv_id": "c1", "user_id": "alice"}),
        StoredPoint(_pid(), {"kind": "head", "conv_id": "c1"}),  # same conversation, unnamed
        StoredPoint(_pid(), {"kind": "head", "conv_id": "c2", "user_id": "bob"}),
        StoredPoint(_pid(), {"kind": "note", "conv_id": "c3", "user_id": "alice"}),  # no tie
    ]
    parts = [StoredPoint(_pid(), {"conv_id": c}) for c in ("c1", "c1", "c2", "c3")]
    await client.records.put(HEADS, heads)
    await client.records.put(PARTS, parts)

    result = await client.forget_user("alice")

    assert result.threads == 1
    assert (await _count(client, HEADS, "c1"), await _count(client, PARTS, "c1")) == (0, 0)
    assert (await _count(client, HEADS, "c2"), await _count(client, PARTS, "c2")) == (1, 1)
    assert (await _count(client, HEADS, "c3"), await _count(client, PARTS, "c3")) == (1, 1)
    assert (await client.forget_user("alice")).threads == 0  # nothing left to tie


async def test_a_collection_nobody_registered_is_refused_and_nothing_is_written(client):
    with pytest.raises(InvalidInputError, match="records live in"):
        await client.records.put("nobodys", [StoredPoint(_pid(), {"conv_id": "c"})])
    with pytest.raises(InvalidInputError, match="records live in"):
        await client.records.count("events")  # the core's own are not records


def test_a_registration_is_checked(registered):
    spec = IndexSpec(keyword=("conv_id",), hot=("tenant",))
    schema.register_collection(PARTS, spec)  # the same again: a no-op
    with pytest.raises(InvalidInputError, match="registered already"):
        schema.register_collection(PARTS, IndexSpec(keyword=("other",), hot=("tenant",)))
    with pytest.raises(InvalidInputError, match="core"):
        schema.register_collection("memories", spec)
    with pytest.raises(InvalidInputError, match="tenant"):
        schema.register_collection("untenanted", IndexSpec(keyword=("conv_id",)))
    assert "untenanted" not in schema.registered()


def test_the_installed_adapter_is_known_from_its_entry_point_alone():
    code = (
        "import sys\n"
        "from memhub.store.schema import registered\n"
        "assert 'memhub_langgraph' not in sys.modules\n"
        "found = registered()\n"
        "print(sorted(found), found['checkpoints'].erase.unit)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["['checkpoint_writes',", "'checkpoints']", "thread_id"]
