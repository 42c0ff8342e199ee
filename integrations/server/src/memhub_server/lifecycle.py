"""Liveness, readiness and a graceful stop.

``GET /health`` says the process answers (a load balancer's liveness probe); it checks
nothing else. ``GET /ready`` says the service can do its work: the store is open, the
embedder has embedded a text (the first probe loads the model), the key file is valid,
and the server is not stopping. It answers 200 or 503 with the same body::

    {"ready": false, "checks": {"store": true, "embedder": true, "keys": true, "accepting": false}}

On SIGTERM (``memhub serve-api``, or ``docker stop``) the service drains: ``/ready``
turns 503, a request that arrives while the listener closes gets 503 ``shutting_down``
with ``Connection: close`` and changes nothing, and every request already running,
writes first of all, runs to its end and is answered before the store closes (for at
most ``--graceful-timeout`` seconds). No write that was answered is lost.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import uvicorn
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from memhub_server import errors
from memhub_server.auth import KeyFileError

log = logging.getLogger("memhub_server")
router = APIRouter()
EMBED_PROBE_S = 60.0  # loading e5 takes ~0.2 s, a busy machine much more


class Drain:
    """ASGI middleware: once the app's ``state.draining`` is set, new requests get 503
    ``shutting_down``; requests already inside run to their end."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = scope["app"].state if "app" in scope else None
        if scope["type"] != "http" or not getattr(state, "draining", False):
            await self.app(scope, receive, send)
            return
        if scope["path"] in ("/health", "/ready"):  # alive, and saying it is not ready
            await self.app(scope, receive, send)
            return
        response = errors.error_response(
            503,
            "shutting_down",
            "the server is stopping: retry on another worker or in a moment",
            headers={"Connection": "close", "Retry-After": "1"},
        )
        await response(scope, receive, send)


def start_draining(app: Any) -> None:
    """Refuse new requests of ``app`` from now on (see ``Drain``)."""
    app.state.draining = True


class DrainingServer(uvicorn.Server):
    """A ``uvicorn.Server`` that starts draining its app the moment it is told to stop, and
    returns from ``serve`` once drained: the caller closes the store and the schedules,
    and the process exits 0 (uvicorn would raise the signal again and die of it, skipping
    that cleanup)."""

    def handle_exit(self, sig: int, frame: Any) -> None:
        start_draining(self.config.app)
        super().handle_exit(sig, frame)
        self._captured_signals.clear()


async def _embedder_ready(request: Request) -> bool:
    state = request.app.state
    if getattr(state, "embedder_ready", False):
        return True
    engine = state.service.engine
    try:
        async with asyncio.timeout(EMBED_PROBE_S):
            await engine.embedder.embed_query("ready")
    except Exception as err:  # noqa: BLE001 -- any failure means not ready; the reason is logged
        log.error("readiness: the embedder failed: %s", err)
        return False
    state.embedder_ready = True
    return True


def _keys_valid(request: Request) -> bool:
    list_keys = getattr(request.app.state.auth, "list_keys", None)
    if list_keys is None:
        return True  # one token held in memory: nothing to read
    try:
        list_keys()
    except KeyFileError:
        return False
    return True


class Readiness(BaseModel):
    """Whether the service can do its work, and which check failed if not."""

    ready: bool
    checks: dict[str, bool] = Field(
        description="store (open), embedder (embeds), keys (key file valid), accepting (not "
        "stopping)"
    )


@router.get(
    "/ready",
    response_model=Readiness,
    tags=["service"],
    summary="can the service do its work",
    responses={503: {"model": Readiness, "description": "not ready: see checks"}},
)
async def ready(request: Request) -> JSONResponse:
    """200 when the store is open, the embedder works, the key file is valid and the server
    is not stopping; 503 otherwise, with the same body saying which check failed."""
    state = request.app.state
    checks = {
        "store": bool(getattr(state.service.engine, "is_open", False)),
        "keys": _keys_valid(request),
        "accepting": not getattr(state, "draining", False),
    }
    checks["embedder"] = checks["store"] and await _embedder_ready(request)
    ok = all(checks.values())
    body = Readiness(ready=ok, checks=checks)
    return JSONResponse(body.model_dump(), status_code=200 if ok else 503)
