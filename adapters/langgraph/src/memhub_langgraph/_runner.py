"""One private event loop per store or checkpointer, owning all work on the memhub client.

LangGraph calls a store and a checkpointer from sync code (``graph.invoke``,
sync nodes in worker threads) and from async code (``graph.ainvoke``) at the
same time. Running every call on one loop thread keeps the asyncio primitives
inside (locks, the client's lazy open) on a single loop, and keeps embedding
work off the caller's loop. Async callers await the result without blocking;
sync callers wait for it, except on that loop itself, where waiting would
deadlock.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from memhub import UsageError

T = TypeVar("T")


class LoopRunner:
    """A daemon thread running one event loop.

    Args:
        name: the thread name (shows in stack dumps).
        owner: the class name used in error messages.
    """

    def __init__(self, name: str, owner: str) -> None:
        self.owner = owner
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        return self.loop.is_closed()

    def _on_own_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def run(self, coro: Coroutine[Any, Any, T], method: str = "batch") -> T:
        """Run ``coro`` on the loop thread and wait for its result (the sync face)."""
        if self._on_own_loop():
            coro.close()
            raise UsageError(
                f"synchronous {self.owner}.{method}() was called from the {self.owner}'s own event loop, "
                f"where waiting would deadlock; await its async twin `a{method}(...)` there"
            )
        self._check_open(coro)
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    async def arun(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop thread and await it from any loop (the async face)."""
        if self._on_own_loop():
            return await coro
        self._check_open(coro)
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def _check_open(self, coro: Coroutine[Any, Any, Any]) -> None:
        if self.loop.is_closed():
            coro.close()
            raise UsageError(f"this {self.owner} is closed")

    def close(self) -> None:
        """Stop the loop thread (idempotent). Call from outside the loop."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
