"""The local hub (``memhub serve``): one process holds the embedded store, every client reaches it.

Qdrant Edge allows one process per store. The hub opens it, listens on
``127.0.0.1`` (a free port unless one is given) and announces itself in
``<storage_dir>/hub.json`` = ``{"url", "token", "pid"}`` (mode 0600, removed on
shutdown). A ``MemoryClient`` asked to open that store finds the file and talks to
the hub instead (see ``memhub.remote``); the token is the only credential, and one
tenant (the settings' ``tenant``, ``"local"`` by default) is served.

The hub also serves the memory inspector at ``/ui`` (``memhub_server.ui``); its
sign-in link, with the token, is printed when ``memhub serve`` or ``memhub ui`` starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
from pathlib import Path
from typing import Any

import uvicorn

from memhub import Settings, StoreLockedError
from memhub.remote import HUB_FILE, read_hub
from memhub_server.app import DEFAULT_MAX_BODY, create_app
from memhub_server.auth import SingleToken, write_private
from memhub_server.service import MemoryService

HOST = "127.0.0.1"


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (0 = a free port); the error names the address."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as err:
        raise OSError(f"cannot listen on {host}:{port}: {err}") from err
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {err.strerror or err}") from err
    return sock


class LocalHub:
    """A hub over ``settings.storage_dir``; ``start()`` returns once it answers.

    Example:
        >>> hub = LocalHub(Settings.load(storage_dir="./.memhub_data"))
        >>> url = await hub.start()      # hub.json written
        >>> await hub.stop()             # hub.json removed, store closed

    Args:
        settings: whose ``storage_dir`` is served and whose ``tenant`` is the hub's.
        port: ``None`` or 0 picks a free port.
        service: injected store/embedder/models (tests); default built from ``settings``.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        port: int | None = None,
        service: MemoryService | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY,
    ) -> None:
        self.settings = settings
        self.service = service or MemoryService(settings)
        self.token = secrets.token_urlsafe(32)
        self.path = Path(settings.storage_dir) / HUB_FILE
        self._port = port or 0
        self._max_body = max_body_bytes
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task | None = None
        self.url = ""

    async def start(self) -> str:
        """Hold the store, listen, write ``hub.json``; returns the URL."""
        try:
            await self.service.open()
        except StoreLockedError as err:
            running = read_hub(self.settings.storage_dir)
            if running is not None:
                raise StoreLockedError(
                    f"a hub is already running for this store at {running.url} "
                    f"(process {running.pid})"
                ) from err
            raise
        try:
            sock = listen(HOST, self._port)
        except OSError:
            await self.service.close()
            raise
        self.url = f"http://{HOST}:{sock.getsockname()[1]}"
        app = create_app(
            service=self.service,
            auth=SingleToken(self.token, self.settings.tenant),
            max_body_bytes=self._max_body,
            on_shutdown=self._unannounce,
            ui_token_login=True,
        )
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():  # startup failed: surface its error
                await self._task
                raise RuntimeError("the hub stopped during startup")
            await asyncio.sleep(0.01)
        self._announce()
        return self.url

    @property
    def inspector_url(self) -> str:
        """The memory inspector's sign-in link (it carries the token, as Jupyter's does)."""
        return f"{self.url}/ui/?token={self.token}"

    async def wait(self) -> None:
        """Serve until stopped (``stop()``, or SIGINT/SIGTERM when run by ``memhub serve``)."""
        if self._task is not None:
            try:
                await self._task
            finally:
                self._unannounce()

    async def stop(self) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._unannounce()
        await self.service.close()

    async def __aenter__(self) -> LocalHub:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    def _announce(self) -> None:
        info = {"url": self.url, "token": self.token, "pid": os.getpid()}
        write_private(self.path, json.dumps(info) + "\n")

    def _unannounce(self) -> None:
        """Remove ``hub.json`` if it is still ours (runs from the app's shutdown,
        even on SIGTERM).
        """
        try:
            if json.loads(self.path.read_text()).get("token") == self.token:
                self.path.unlink()
        except (OSError, ValueError, AttributeError):
            pass
