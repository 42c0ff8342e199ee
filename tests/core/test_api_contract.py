"""One contract, ``memhub.api.MemoryAPI``: the client, both backends it chooses from and the
adapters' bridge take exactly its operations, and a call's scope is merged one way."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from memhub import ANY, InvalidInputError, MemoryClient, SyncMemoryClient
from memhub.api import MemoryAPI
from memhub.bridge import MemHub
from memhub.local import LocalBackend
from memhub.remote import RemoteClient
from memhub.scope import Scope, call_scope
from memhub.testing import HashEmbedder

LIFECYCLE = {"open", "aclose"}  # a client's own, not operations of the contract


def _operations(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in inspect.getmembers(cls, inspect.iscoroutinefunction)
        if not name.startswith("_") and name not in LIFECYCLE
    }


@pytest.mark.parametrize("implementation", [MemoryClient, LocalBackend, RemoteClient])
def test_the_client_and_both_backends_take_exactly_the_contracts_operations(implementation):
    contract = _operations(MemoryAPI)
    assert {"add", "search", "memorize", "recall", "forget_user", "import_"} <= set(contract)
    found = _operations(implementation)
    assert set(found) == set(contract)
    drift = [name for name, sig in contract.items() if str(found[name]) != str(sig)]
    assert not drift, f"{implementation.__name__} differs from MemoryAPI in {drift}"


def test_the_client_documents_each_operation_with_the_contracts_words():
    for name in _operations(MemoryAPI):
        assert getattr(MemoryClient, name).__doc__ == getattr(MemoryAPI, name).__doc__, name
        assert getattr(MemoryClient, name).__doc__, name


async def test_the_store_opens_on_the_first_operation_and_says_so(tmp_path):
    client = MemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path)
    assert not client.engine.is_open
    try:
        assert (await client.stats()).atoms == 0
        assert client.engine.is_open
    finally:
        await client.aclose()
    assert not client.engine.is_open


CHECKOUT = Scope(
    tenant="t", user_id="u", app_id="app", workspace="/w", repository="o/r", branch="main"
)


def test_a_calls_scope_overrides_the_default_and_keeps_the_checkout():
    merged = call_scope(CHECKOUT, {"user_id": "  bob ", "agent_id": None})
    assert merged == Scope(
        tenant="t", user_id="bob", app_id="app", workspace="/w", repository="o/r", branch="main"
    )


def test_a_memhub_calls_scope_takes_the_checkout_only_from_the_call():
    assert call_scope(CHECKOUT, {"user_id": "bob"}, user=True) == Scope(
        tenant="t", user_id="bob", app_id="app", workspace=ANY, repository=ANY, branch=ANY
    )
    named = call_scope(CHECKOUT, {"user_id": "bob", "branch": "dev"}, user=True)
    assert (named.repository, named.branch) == (ANY, "dev")


@pytest.mark.parametrize("given", [{"user_id": "*"}, {"app_id": ""}, {"branch": "a\x00b"}])
def test_a_bad_scope_key_is_refused_by_name(given):
    with pytest.raises(InvalidInputError, match=next(iter(given))):
        call_scope(CHECKOUT, given, user=True)


def test_memhub_runs_typed_calls_on_a_blocking_client_from_sync_and_async_code(tmp_path):
    said = {"role": "user", "content": "I keep bees on the roof"}
    with SyncMemoryClient(storage_dir=tmp_path / "s", embed=HashEmbedder(), cwd=tmp_path) as c:
        hub = MemHub(c)
        written = hub.call_sync(lambda api: api.add(messages=[said], user_id="alice"))
        assert written.raw_ids

        async def read_back() -> list[str]:
            found = await hub.call(lambda api: api.search_conversation("bees", user_id="alice"))
            return [t.content for t in found.turns]

        assert asyncio.run(read_back()) == [said["content"]]


def test_memhub_refuses_what_is_not_a_memhub_client():
    with pytest.raises(TypeError, match="expected a memhub MemoryClient"):
        MemHub(object())  # type: ignore[arg-type]
