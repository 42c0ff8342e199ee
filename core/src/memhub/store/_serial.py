"""``SerialWorker``: one thread that runs a store's binding calls in order, awaited from a loop.

Not ``ThreadPoolExecutor(max_workers=1)``: its ``submit`` takes a lock shared by every
executor of the process (``concurrent.futures.thread._global_shutdown_lock``), held while
any of them starts a thread. An agent framework may make a new executor for each run and
start its threads as a step's records are written, so each write's hand-off to the
store waited on the framework's thread starts: in a profile of an adapter's steps the
engine's thread spent more samples waiting there than in all of memhub's own work.
A queue and one thread of our own take no lock of anyone else's.

A short call (``inline=True``: a small write or lookup) runs on the calling thread
instead when nothing is queued or running, which saves two thread hand-offs (waking the
worker, then the caller). It holds up that thread no longer than the worker would: the
binding holds the GIL while it works, so no other Python thread runs during a binding
call wherever it is made. ``call`` is the same for a caller on no event loop (a thread
that blocks until its result).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)

# fn, args, and what to do with its result or exception (None: log an exception)
_Item = tuple[
    Callable[..., Any], tuple[Any, ...], "Callable[[Any, BaseException | None], None] | None"
]


class SerialWorker:
    """Runs callables one at a time, in the order given, on a daemon thread named ``name``.

    The thread starts with the first call; ``shutdown()`` finishes what is queued and stops
    it (and is run at interpreter exit, so a queued write is never cut off).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()
        self._busy = threading.Lock()  # held while a call runs, on the worker or inline
        self._queued = 0  # calls put on the queue and not finished
        atexit.register(_shutdown_at_exit, weakref.ref(self))

    async def run(self, fn: Callable[..., T], *args: Any, inline: bool = False) -> T:
        """``fn(*args)`` on the worker (or here, when ``inline`` and the worker is idle); its
        result or exception, awaited."""
        if inline and (done := self.here(fn, *args)) is not None:
            return done[0]
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(result: Any, error: BaseException | None) -> None:
            # a closed loop (RuntimeError): no one is waiting for the result any more
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, future, result, error)

        self._put((fn, args, settle))
        return await future

    def call(self, fn: Callable[..., T], *args: Any, inline: bool = False) -> T:
        """``run`` for a caller on no event loop: blocks this thread until ``fn(*args)`` ran."""
        if threading.current_thread() is self._thread:
            raise RuntimeError(f"{self.name}: call() from the worker itself would deadlock")
        if inline and (done := self.here(fn, *args)) is not None:
            return done[0]
        future: Future[T] = Future()

        def settle(result: Any, error: BaseException | None) -> None:
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)

        self._put((fn, args, settle))
        return future.result()

    def now(
        self, fn: Callable[..., T], *args: Any, wait: bool, inline: bool = True
    ) -> tuple[T] | None:
        """``(fn(*args),)`` for a caller on no event loop: ``call`` (``inline`` as there) when
        it may ``wait``, else run here only if it is ``inline`` and the worker is idle
        (``here``); ``None``: nothing run."""
        if wait:
            return (self.call(fn, *args, inline=inline),)
        return self.here(fn, *args) if inline else None

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)`` without waiting for it; an exception is logged."""
        self._put((fn, args, None))

    def here(self, fn: Callable[..., T], *args: Any) -> tuple[T] | None:
        """``(fn(*args),)`` run on this thread if the worker is idle, else ``None`` (nothing
        run): for a caller on an event loop that must not block waiting for the worker."""
        if self._queued == 0 and self._busy.acquire(blocking=False):
            try:
                if self._queued == 0:  # nothing slipped in ahead of it
                    return (fn(*args),)
            finally:
                self._busy.release()
        return None

    def shutdown(self) -> None:
        """Run what is queued, then stop the thread (idempotent; a later call starts anew)."""
        with self._guard:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            if thread is not threading.current_thread():
                thread.join()

    def _put(self, item: _Item) -> None:
        with self._guard:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
            self._queued += 1
        self._queue.put(item)

    def _serve(self) -> None:
        while (item := self._queue.get()) is not None:
            fn, args, settle = item
            with self._busy:
                try:
                    result, error = fn(*args), None
                except BaseException as err:  # carried to the waiting caller
                    result, error = None, err
            with self._guard:
                self._queued -= 1
            if settle is not None:
                settle(result, error)
            elif error is not None:
                log.error("%s: background call %s failed", self.name, fn, exc_info=error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _shutdown_at_exit(ref: weakref.ref[SerialWorker]) -> None:
    worker = ref()
    if worker is not None:
        worker.shutdown()
