"""One add carries at most ``max_messages_per_add`` turns through the REST service; the
Python ``RemoteClient`` splits a longer conversation into several adds of one session."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from memhub import MemoryClient, Settings
from memhub.messages import MAX_MESSAGES
from memhub.remote import RemoteClient
from memhub.scope import Scope
from memhub.testing import HashEmbedder
from memhub_server.app import create_app
from memhub_server.auth import KEYS_FILE, KeyStore
from memhub_server.service import MemoryService

LIMIT = 3


def _app(store):
    keys = KeyStore(store / KEYS_FILE)
    key, _ = keys.create("tenant-a")
    settings = Settings(storage_dir=str(store), max_messages_per_add=LIMIT)
    service = MemoryService(settings, embed=HashEmbedder())
    return create_app(service=service, auth=keys), key


def _turns(n: int) -> list[dict[str, str]]:
    """``n`` distinct user and assistant turns, in the order they were said."""
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}: 我第{i}次去了杭州"}
        for i in range(n)
    ]


@pytest.fixture
def rest(fresh_store) -> Iterator[tuple[TestClient, dict[str, str]]]:
    app, key = _app(fresh_store)
    with TestClient(app) as http:
        yield http, {"Authorization": f"Bearer {key}"}


def test_an_add_over_the_limit_is_refused_with_the_limit_and_stores_nothing(rest, uid):
    http, auth = rest
    body = {"user_id": uid, "session_id": "s", "messages": _turns(LIMIT + 1)}
    assert http.post("/v1/memories/", json=body).status_code == 401  # the key comes first
    response = http.post("/v1/memories/", json=body, headers=auth)
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "payload_too_large"
    assert f"has {LIMIT + 1} user and assistant messages; the limit is {LIMIT}" in error["message"]
    assert "session_id" in error["message"] and "memhub import" in error["message"]
    stored = http.get(
        "/v1/memories/", params={"user_id": uid, "include_history": True}, headers=auth
    )
    assert stored.json() == []
    turns = http.post(
        "/v1/memories/conversation", json={"user_id": uid, "session_id": "s"}, headers=auth
    )
    assert turns.json()["turns"] == []


def test_an_add_past_what_any_request_takes_says_what_to_do(rest, uid):
    http, auth = rest
    said = [
        {"role": "user", "content": "把测试跑一遍"},
        *({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"} for i in range(MAX_MESSAGES)),
    ]
    response = http.post("/v1/memories/", json={"user_id": uid, "messages": said}, headers=auth)
    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert f"one add takes at most {MAX_MESSAGES}" in message and "session_id" in message


def test_an_add_at_the_limit_is_taken_and_system_and_tool_messages_do_not_count(rest, uid):
    http, auth = rest
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        *_turns(LIMIT),
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    response = http.post("/v1/memories/", json={"user_id": uid, "messages": messages}, headers=auth)
    assert response.status_code == 200, response.text
    assert len(response.json()["raw_ids"]) == LIMIT
    assert http.get("/health").json()["max_messages_per_add"] == LIMIT


@pytest.fixture
async def remote(fresh_store) -> AsyncIterator[RemoteClient]:
    app, key = _app(fresh_store)
    service = app.state.service
    transport = httpx.ASGITransport(app=app)
    client = RemoteClient("http://memhub.test", key, scope=Scope(), transport=transport)
    yield client
    await client.aclose()
    await service.close()


async def test_remote_client_sends_a_long_conversation_as_several_adds_of_one_session(remote):
    said = _turns(3 * LIMIT + 1)
    written = await remote.add(messages=said, user_id="alice", session_id="chat-1")
    assert len(written.raw_ids) == len(said) and written.memory_id == written.raw_ids[0]
    session = await remote.conversation(user_id="alice", session_id="chat-1")
    assert [t.content for t in session.turns] == [m["content"] for m in said]
    assert [t.id for t in session.turns] == written.raw_ids
    assert {t.session_id for t in session.turns} == {"chat-1"}


async def test_remote_client_sends_tool_calls_with_the_turns_around_them(remote):
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function"}]}
    result = {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    # cut every LIMIT messages, the tool calls would make a part without any text (refused)
    later = _turns(LIMIT + 2)[1:]
    said = [{"role": "user", "content": "把测试跑一遍"}, *[call, result] * (2 * LIMIT), *later]
    written = await remote.add(messages=said, user_id="bob", session_id="chat-2")
    session = await remote.conversation(user_id="bob", session_id="chat-2")
    assert [t.content for t in session.turns] == ["把测试跑一遍", *(m["content"] for m in later)]
    assert len(written.raw_ids) == LIMIT + 2


@pytest.mark.enable_socket
@pytest.mark.network
async def test_memory_client_through_the_hub_adds_a_conversation_longer_than_one_request(
    hub, fresh_store
):
    limit = Settings().max_messages_per_add
    said = _turns(2 * limit + 1)
    async with MemoryClient(
        storage_dir=fresh_store, embed=HashEmbedder(), cwd=fresh_store.parent
    ) as client:
        written = await client.add(messages=said, user_id="dana", session_id="chat-3")
        session = await client.conversation(user_id="dana", session_id="chat-3")
    assert [t.content for t in session.turns] == [m["content"] for m in said]
    assert [t.id for t in session.turns] == written.raw_ids
