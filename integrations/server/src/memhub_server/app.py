"""``create_app``: the REST API as a FastAPI application.

    /health                       alive; no key needed
    /ready                        store open, embedder working, keys valid (``lifecycle``)
    /metrics                      Prometheus, with an operator's key (``metrics``; off by default)
    /v1/memories/...              the MemHub face (add, search, get, list, update, delete)
    /v1/users/{user_id}           DELETE: forget one user (the right to erasure)
    /v1/hmg/...                   the HMG face (memorize, recall, correct, govern, ...)
    /ui/                          the memory inspector, a web page (``memhub_server.ui``)

Every ``/v1`` request needs ``Authorization: Bearer <key>``; the key picks the
tenant, and every read and write of the request stays inside that tenant.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memhub import Settings
from memhub.engine.read import browse
from memhub_server import errors, ui
from memhub_server.auth import KEYS_FILE, Authenticator, KeyStore
from memhub_server.lifecycle import Drain
from memhub_server.lifecycle import router as lifecycle_router
from memhub_server.limits import RateGate, TenantLimits
from memhub_server.logs import RequestLog
from memhub_server.metrics import Metrics
from memhub_server.metrics import router as metrics_router
from memhub_server.routes_hmg import router as hmg_router
from memhub_server.routes_memhub import router as memhub_router
from memhub_server.routes_memhub import users_router
from memhub_server.routes_records import router as records_router
from memhub_server.routes_transfer import router as transfer_router
from memhub_server.schemas import Health
from memhub_server.service import MemoryService

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a long coding session fits; a runaway upload does not
# Seconds to receive a whole body: 1 MiB needs 35 KB/s. A client announcing more than it
# sends would otherwise hold its connection (and a worker) for as long as it likes.
DEFAULT_BODY_TIMEOUT = 30.0


@functools.cache
def _version() -> str:
    # Read once: looking a distribution up walks sys.path (dozens of file system calls, each
    # giving up the GIL and waiting to take it back), and /health must answer at once while
    # a worker thread works through a long add.
    try:
        return version("memhub-server")
    except PackageNotFoundError:
        return "unknown"


class BodyLimit:
    """Refuse bodies over ``max_bytes`` with 413 before reading them whole.

    A declared ``Content-Length`` over the limit is refused at once; a chunked body is
    counted as it arrives and refused as soon as it passes the limit.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        received = 0
        too_large = False
        started = False

        async def counted() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    too_large = True
                    raise HTTPException(413, self._message())
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if (
                too_large
            ):  # whatever the app answers after the limit tripped, the client gets the 413
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, guarded)
        except HTTPException:
            if not too_large:
                raise
        if too_large and not started:
            await self._refuse(send)

    def _message(self) -> str:
        return f"request body is larger than {self.max_bytes} bytes"

    async def _refuse(self, send: Send) -> None:
        response = errors.error_response(
            413, "payload_too_large", self._message(), headers={"Connection": "close"}
        )
        await send({"type": "http.response.start", "status": 413, "headers": response.raw_headers})
        await send({"type": "http.response.body", "body": response.body})


class BodyTimeout:
    """Answer 408 and close when a request body is not complete within ``seconds``.

    Only the body is timed: once its last part arrived, waiting (e.g. for the client
    to disconnect) is not bounded here.
    """

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = asyncio.get_running_loop().time() + self.seconds
        complete = timed_out = started = False

        async def timed() -> Message:
            nonlocal complete, timed_out
            if complete:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                timed_out = True
                raise HTTPException(408, self._message()) from None
            complete = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        async def guarded(message: Message) -> None:
            nonlocal started
            if not timed_out:
                started = started or message["type"] == "http.response.start"
                await send(message)

        try:
            await self.app(scope, timed, guarded)
        except HTTPException:
            if not timed_out:
                raise
        if timed_out and not started:
            response = errors.error_response(
                408, "request_timeout", self._message(), headers={"Connection": "close"}
            )
            await send(
                {"type": "http.response.start", "status": 408, "headers": response.raw_headers}
            )
            await send({"type": "http.response.body", "body": response.body})

    def _message(self) -> str:
        return f"the request body did not arrive within {self.seconds:g} seconds"


class HeadAsGet:
    """``HEAD`` on a ``GET`` route: the ``GET`` answer's status and headers, without the body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def create_app(
    settings: Settings | None = None,
    *,
    service: MemoryService | None = None,
    auth: Authenticator | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    on_shutdown: Callable[[], None] | None = None,
    ui_token_login: bool = False,
    metrics: bool = False,
    limits: TenantLimits | None = None,
) -> FastAPI:
    """The REST API over one store.

    Args:
        settings: used when no ``service`` is given (default: ``Settings.load()``).
        service: the store, embedder and models (tests inject one with a test embedder).
        auth: who may call; default: the API keys in ``<storage_dir>/api_keys.json``.
        max_body_bytes: larger request bodies get 413.
        body_timeout: seconds to receive a request's body; a slower one gets 408.
        on_shutdown: called when the server stops, before the store closes (the hub
            removes its ``hub.json`` there).
        ui_token_login: the inspector accepts the key in its address (``/ui/?token=``),
            as the local hub's printed link does.
        metrics: serve ``GET /metrics`` (operator's key). The counters are kept either way:
            the inspector's overview shows them.
        limits: the per-tenant limits; default: those the settings set (none by default).

    Example:
        >>> app = create_app(Settings.load(storage_dir="./.memhub_data"))
        >>> # uvicorn.run(app, host="127.0.0.1", port=8000)
    """
    if service is None:
        service = MemoryService(settings or Settings.load())
    if auth is None:
        auth = KeyStore(Path(service.settings.storage_dir) / KEYS_FILE)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if isinstance(auth, KeyStore):
            auth.check()  # a broken key file stops the start, with the reason
        await service.open()
        try:
            yield
        finally:
            if on_shutdown is not None:
                on_shutdown()
            await service.close()

    app = FastAPI(
        title="memhub",
        version=_version(),
        summary="Long-term memory for AI agents: the REST API of memhub.",
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.auth = auth
    app.state.metrics = counters = Metrics(service)
    app.state.limits = limits or TenantLimits.from_settings(
        service.settings, functools.partial(browse.count, service.engine)
    )
    app.state.draining = False
    errors.install(app)
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(BodyTimeout, seconds=body_timeout)
    app.add_middleware(RateGate)  # before the body is read: a refusal costs next to nothing
    app.add_middleware(Drain)
    app.add_middleware(HeadAsGet)
    app.add_middleware(RequestLog, done=counters.request_done)  # outermost: sees every answer

    limit = service.settings.max_messages_per_add

    @app.get("/health", response_model=Health, tags=["service"])
    async def health() -> Health:
        """Liveness and the per-request limits; needs no key and says nothing about the data."""
        return Health(version=_version(), max_messages_per_add=limit)

    app.include_router(lifecycle_router)
    if metrics:
        app.include_router(metrics_router)

    app.include_router(
        memhub_router, prefix="/v1/memories", tags=["memories"], responses=errors.RESPONSES
    )
    app.include_router(users_router, prefix="/v1/users", tags=["users"], responses=errors.RESPONSES)
    app.include_router(hmg_router, prefix="/v1/hmg", tags=["hmg"], responses=errors.RESPONSES)
    app.include_router(transfer_router, prefix="/v1", tags=["transfer"], responses=errors.RESPONSES)
    # the wire protocol of RemoteClient.records (framework adapters), not a public API
    app.include_router(
        records_router, prefix="/v1/records", responses=errors.RESPONSES, include_in_schema=False
    )
    ui.install(app, auth, token_login=ui_token_login)
    return app
