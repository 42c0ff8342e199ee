"""A fair queue for a shared model: callers take turns, one job each per turn.

The REST service shares one embedder across tenants. With a plain FIFO pool, a tenant
that sends many (or long) texts puts every other tenant's query behind all of them; a
round robin over callers bounds another caller's wait to one job per busy caller.

The caller is whatever ``caller`` holds in the submitting context: the client sets its
tenant there for the duration of each operation (``MemoryClient``), so every
embedding made on a tenant's behalf, on any code path, is queued under that tenant.
The queue lives in threads, not on an event loop, so clients on different loops (the
sync face, adapters) can share one embedder.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

caller: ContextVar[Hashable] = ContextVar("memhub_embed_caller", default="")
"""Who the embedding is for; jobs are served round robin across distinct values."""


class FairExecutor:
    """One worker thread serving per-caller queues round robin.

    Args:
        name: the worker thread's name.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._queues: dict[
            Hashable, deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]]
        ] = {}
        self._turns: deque[Hashable] = deque()
        self._worker: threading.Thread | None = None

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue ``fn(*args)`` under the current ``caller``; the future holds its result."""
        future: Future[T] = Future()
        key = caller.get()
        with self._lock:
            queue = self._queues.get(key)
            if queue is None:
                queue = self._queues[key] = deque()
                self._turns.append(key)
            queue.append((future, fn, args))
            if self._worker is None:
                self._worker = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._worker.start()
            self._ready.notify()
        return future

    def pending(self) -> dict[Hashable, int]:
        """Jobs waiting per caller (for tests and diagnostics)."""
        with self._lock:
            return {key: len(queue) for key, queue in self._queues.items()}

    def _next(self) -> tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]:
        with self._lock:
            while not self._turns:
                self._ready.wait()
            key = self._turns.popleft()
            queue = self._queues[key]
            job = queue.popleft()
            if queue:
                self._turns.append(key)  # its next job waits for everyone else's turn
            else:
                del self._queues[key]
            return job

    def _serve(self) -> None:
        while True:
            future, fn, args = self._next()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args))
            except BaseException as err:  # handed to the waiting caller, who re-raises it
                future.set_exception(err)
