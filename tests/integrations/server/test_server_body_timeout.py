"""A client that announces a body and never sends it all gets 408, and its connection is closed."""

from __future__ import annotations

import asyncio
import time

from memhub_server.app import create_app
from memhub_server.auth import SingleToken


async def test_a_body_that_stops_arriving_gets_408_and_the_connection_closes(
    fresh_store, make_service
):
    app = create_app(
        service=make_service(fresh_store), auth=SingleToken("t", "local"), body_timeout=0.5
    )
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/memories/",
        "raw_path": b"/v1/memories/",
        "query_string": b"",
        "root_path": "",
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
        "headers": [
            (b"authorization", b"Bearer t"),
            (b"content-type", b"application/json"),
            (b"content-length", b"4000"),
        ],
    }
    parts = [
        {"type": "http.request", "body": b'{"user_id": "alice", "content": "', "more_body": True}
    ]
    sent: list[dict] = []

    async def receive() -> dict:
        if parts:
            return parts.pop(0)
        await asyncio.Event().wait()  # the rest never comes
        raise AssertionError("unreachable")

    async def send(message: dict) -> None:
        sent.append(message)

    started = time.monotonic()
    await asyncio.wait_for(app(scope, receive, send), timeout=10)

    assert time.monotonic() - started < 5
    assert sent[0]["status"] == 408 and (b"connection", b"close") in sent[0]["headers"]
    assert b"request_timeout" in sent[1]["body"]
