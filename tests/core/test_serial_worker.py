"""``SerialWorker``: the one thread a Qdrant Edge store's binding calls run on."""

from __future__ import annotations

import asyncio
import concurrent.futures.thread as cf_thread
import threading
import time

import pytest

from memhub.store._serial import SerialWorker


async def test_calls_run_in_order_on_the_worker_and_errors_reach_the_caller():
    worker = SerialWorker("memhub-test")
    seen: list[tuple[int, str]] = []

    def note(i: int) -> int:
        seen.append((i, threading.current_thread().name))
        return i * 10

    try:
        assert await asyncio.gather(*(worker.run(note, i) for i in range(5))) == [0, 10, 20, 30, 40]
        assert seen == [(i, "memhub-test") for i in range(5)]
        with pytest.raises(ZeroDivisionError):
            await worker.run(lambda: 1 / 0)
    finally:
        worker.shutdown()


async def test_a_short_call_runs_here_when_idle_and_waits_its_turn_when_not():
    worker = SerialWorker("memhub-test")
    release = threading.Event()
    order: list[str] = []
    try:
        here = await worker.run(lambda: threading.current_thread().name, inline=True)
        assert here == threading.current_thread().name  # idle: no hand-off

        worker.submit(lambda: (release.wait(5), order.append("long")))
        behind = asyncio.ensure_future(
            worker.run(
                lambda: (order.append("short"), threading.current_thread().name)[1], inline=True
            )
        )
        await asyncio.sleep(0.05)
        assert not behind.done()  # queued behind the long call, not run beside it
        release.set()
        assert await behind == "memhub-test"
        assert order == ["long", "short"]
    finally:
        release.set()
        worker.shutdown()


async def test_a_call_does_not_wait_on_other_thread_pools():
    """``ThreadPoolExecutor.submit`` takes a lock every executor of the process shares while
    it starts a thread (LangGraph starts several per ``invoke``); the store's calls don't."""
    worker = SerialWorker("memhub-test")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with cf_thread._global_shutdown_lock:
            held.set()
            release.wait(2)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        held.wait(5)
        start = time.perf_counter()
        assert await worker.run(lambda: 42) == 42
        assert time.perf_counter() - start < 1  # not the 2 s the lock is held
    finally:
        release.set()
        holder.join()
        worker.shutdown()


def test_shutdown_finishes_what_is_queued():
    worker = SerialWorker("memhub-test")
    done: list[int] = []
    for i in range(3):
        worker.submit(done.append, i)
    worker.shutdown()
    assert done == [0, 1, 2]


def test_a_blocking_caller_gets_the_same_service_without_a_loop():
    worker = SerialWorker("memhub-test")
    release = threading.Event()
    try:
        here = threading.current_thread().name
        assert worker.call(lambda: threading.current_thread().name, inline=True) == here
        assert worker.call(lambda: threading.current_thread().name) == "memhub-test"
        with pytest.raises(ZeroDivisionError):
            worker.call(lambda: 1 / 0, inline=True)

        worker.submit(release.wait, 5)
        got: list[str] = []
        waiter = threading.Thread(
            target=lambda: got.append(
                worker.call(lambda: threading.current_thread().name, inline=True)
            )
        )
        waiter.start()
        waiter.join(0.05)
        assert waiter.is_alive()  # queued behind the long call, not run beside it
        release.set()
        waiter.join(5)
        assert got == ["memhub-test"]
        with pytest.raises(RuntimeError, match="deadlock"):
            worker.call(worker.call, lambda: None)  # from the worker itself
    finally:
        release.set()
        worker.shutdown()
