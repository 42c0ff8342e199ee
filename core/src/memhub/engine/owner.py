"""``Owner``: the one event loop an engine lives on, and the door every caller goes through.

One ``Engine`` is driven by many callers: the application's loop, a
``SyncMemoryClient`` called from worker threads, framework adapters that keep
their own loops, the REST service's per-request clients. Its ``asyncio.Lock`` and
the model clients' connection pools belong to one loop, and an ``asyncio.Lock``
touched from two loops is not a lock: two waiters on different loops can each
wait for a wake-up the other loop never delivers (``MemHub(client).add_sync`` in a
thread while ``await hub.add`` ran on the main loop hung for good that way).

So each engine owns one daemon thread running one loop, started on first use.
Every operation is a coroutine submitted there; an async caller on any loop
awaits a future (its own loop stays free), a sync caller blocks on it, and code
already on the owner loop runs the coroutine in place. Nothing loop-bound is ever
touched from another loop. Work that blocks (embedding, index builds, purge) runs
on bounded worker threads, so the owner loop keeps serving other tenants.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from memhub.errors import UsageError

T = TypeVar("T")


class Owner:
    """A daemon thread running the event loop of one engine (see the module docstring).

    Args:
        name: the thread's name, as it shows in stack dumps.
    """

    def __init__(self, name: str = "memhub-engine") -> None:
        self.name = name
        self._guard = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The owner loop, started if it is not running."""
        with self._guard:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=self._serve, args=(loop,), name=self.name, daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    @property
    def running(self) -> bool:
        return self._loop is not None

    def lock(self, name: str) -> asyncio.Lock:
        """The owner loop's lock called ``name``; take it only on the owner loop."""
        if not self.on_owner_loop():
            raise UsageError(f"the engine's {name} lock was asked for outside its owner loop")
        lock = self._locks.get(name)
        if lock is None:
            lock = self._locks[name] = asyncio.Lock()
        return lock

    def on_owner_loop(self) -> bool:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return False
        return running is self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coro`` on the owner loop; the returned future is safe to wait on anywhere.

        A ``KeyboardInterrupt`` or ``SystemExit`` raised by ``coro`` (a progress callback
        stopping an import) reaches the future as ``Escaped``: raised on the loop itself,
        asyncio would stop the loop for every other caller.
        """
        return asyncio.run_coroutine_threadsafe(_guarded(coro), self.loop)

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` run on the owner loop, from any loop (in place when already there)."""
        if self.on_owner_loop():
            return await coro
        try:
            return await asyncio.wrap_future(self.submit(coro))
        except Escaped as escaped:
            raise escaped.original from None

    def call_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the owner loop and block until it is done (the sync face)."""
        if self.on_owner_loop():
            coro.close()
            raise UsageError(
                "a blocking memhub call was made on the engine's own event loop, where "
                "waiting would deadlock; await the async client's method there"
            )
        try:
            return self.submit(coro).result()
        except Escaped as escaped:
            raise escaped.original from None

    def stop(self) -> None:
        """Stop the owner thread; calls still running there are cancelled, never left hanging.

        The next call starts a new one. From the owner loop itself the stop is scheduled.
        """
        with self._guard:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
            self._locks = {}
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if thread is not threading.current_thread():
            thread.join()

    def _serve(self, loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            with self._guard:  # however it ended, the next call starts a new loop
                if self._loop is loop:
                    self._loop = self._thread = None
                    self._locks = {}
            # Whatever is still running is cancelled and its waiters are told so; the
            # callbacks already scheduled (results of finished calls) run first.
            loop.run_until_complete(_cancel_pending())
            loop.close()


class Escaped(Exception):  # noqa: N818 - it carries a BaseException across the loop
    """A ``KeyboardInterrupt`` or ``SystemExit`` from a call on the owner loop, carried to its
    caller.
    """

    def __init__(self, original: BaseException) -> None:
        super().__init__(repr(original))
        self.original = original


async def _guarded(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return await coro
    except (KeyboardInterrupt, SystemExit) as err:
        raise Escaped(err) from err


async def _cancel_pending() -> None:
    this = asyncio.current_task()
    pending = [t for t in asyncio.all_tasks() if t is not this and not t.done()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
