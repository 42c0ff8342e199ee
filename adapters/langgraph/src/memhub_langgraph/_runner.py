"""The event loop a store or checkpointer runs its work on: the memhub engine's own.

LangGraph calls a store and a checkpointer from sync code (``graph.invoke``,
sync nodes in worker threads) and from async code (``graph.ainvoke``) at the
same time. Every call runs on one loop: for a local ``MemoryClient`` the owner
loop of its engine (``memhub.engine.owner``), where the client's record calls
run in place; for a remote client a private loop thread (its HTTP pool belongs
to one loop). Async callers await the result without blocking; sync callers
wait for it, except on that loop itself, where waiting would deadlock. (The
checkpointer's writes to a local Qdrant Edge store skip the loop: ``Records.put_now``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from memhub import MemoryClient, UsageError
from memhub.api import ClientAPI
from memhub.bridge import Client
from memhub.engine.owner import Owner
from memhub.sync import SyncFace

T = TypeVar("T")


class LoopRunner:
    """Runs coroutines on the client's engine loop, or on a private one.

    Args:
        name: the thread name of a private loop (shows in stack dumps).
        owner: the class name used in error messages.
        client: the memhub client the work is for.
    """

    def __init__(self, name: str, owner: str, client: ClientAPI | None = None) -> None:
        self.owner = owner
        self._shared = isinstance(client, MemoryClient)
        self._loop_owner = client.engine.owner if isinstance(client, MemoryClient) else Owner(name)
        self._closed = False

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop_owner.loop

    @property
    def closed(self) -> bool:
        return self._closed

    def run(self, coro: Coroutine[Any, Any, T], method: str = "batch") -> T:
        """Run ``coro`` on the loop and wait for its result (the sync face)."""
        try:
            self.check(method)
        except UsageError:
            coro.close()
            raise
        return self._loop_owner.call_sync(coro)

    def check(self, method: str) -> None:
        """Raise what ``run`` raises for a sync call of ``method`` from here, before any work."""
        if self._loop_owner.on_owner_loop():
            raise UsageError(
                f"synchronous {self.owner}.{method}() was called from the {self.owner}'s own event "
                f"loop, where waiting would deadlock; await its async twin `a{method}(...)` there"
            )
        self.check_open()

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and await it from any loop (the async face)."""
        self._check_open(coro)
        return await self._loop_owner.call(coro)

    def check_open(self) -> None:
        if self._closed:
            raise UsageError(f"this {self.owner} is closed")

    def _check_open(self, coro: Coroutine[Any, Any, Any]) -> None:
        try:
            self.check_open()
        except UsageError:
            coro.close()
            raise

    def close(self) -> None:
        """Stop taking calls (idempotent); a private loop thread stops too."""
        if not self._closed:
            self._closed = True
            if not self._shared:
                self._loop_owner.stop()


def resolve_client(
    client: Client | None, storage_dir: Any, embed: Any, owner: str
) -> tuple[ClientAPI, bool]:
    """The async client to work through, and whether it was opened here (to close it too).

    Accepts a ``MemoryClient``, a ``SyncMemoryClient`` (its async client is used), a
    ``RemoteClient`` or ``SyncRemoteClient``, or ``storage_dir`` (a client is opened on
    it; in one process it shares the engine of any other client on that folder).
    """
    if (client is None) == (storage_dir is None):
        raise ValueError(f"{owner} takes either a memhub client or storage_dir")
    if client is None:
        return MemoryClient(storage_dir=storage_dir, embed=embed), True
    if isinstance(client, SyncFace):  # a SyncMemoryClient or SyncRemoteClient
        client = client.async_client
    if not hasattr(client, "records"):
        raise TypeError(f"{owner} needs a memhub client, not {type(client).__name__}")
    return client, False
