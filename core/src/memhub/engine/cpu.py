"""Bounded workers for the CPU-bound part of a request.

An engine serves every caller from one owner loop (``memhub.engine.owner``). The
rules a write runs over its text (redaction's 80-odd formats, hashing, epistemic
cues, BM25 terms) cost microseconds on a chat turn and hundreds of milliseconds
on a 1 MiB ``add``; run on the loop, that long add froze every other caller of the
engine meanwhile (682 ms, ``bench/adversarial_bench.py``). ``run`` sends such work
to a small pool of threads instead and runs short work in place, where a thread hop
would cost more than the work.

A worker thread still shares the GIL, and one regex or BM25 call over 100,000
characters holds it until it returns (30-80 ms; a Python loop gives it up every
``sys.getswitchinterval()``, 5 ms, but every thread that wants it back waits that
long each time). A server's event loop takes the GIL back several times per request,
so next to a 1 MiB add a ``/health`` took 0.2-1.9 s on a loaded machine. A process
that serves others calls :func:`use_processes`: from then on work over ``BIG``
characters runs in worker processes, with their own GIL, and the loop keeps its own.
A process costs its start (about a second, paid once, ``use_processes`` starts one
at once) and a copy of its input and result (about a millisecond per MiB), so only
big work goes there. A function sent there must be importable by name (no lambdas),
and so must what it returns. The SDK stays in one process: a library that starts
processes would re-run a script without a ``__main__`` guard.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import ParamSpec, TypeVar

__all__ = ["BIG", "SMALL", "run", "use_processes"]

P = ParamSpec("P")
T = TypeVar("T")

# Below this many characters of input the work is done in place (~1 ms of rules at most).
SMALL = 8_192
# Above this many, in a worker process when a server asked for them (~10-80 ms of GIL).
BIG = 65_536
# Two cores is the machine this is sized for; more threads would only queue on the GIL.
_WORKERS = 2

_threads: ThreadPoolExecutor | None = None
_processes: ProcessPoolExecutor | None = None
_process_workers = 0
_guard = threading.Lock()


def _thread_pool() -> ThreadPoolExecutor:
    global _threads
    with _guard:
        if _threads is None:
            _threads = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="memhub-cpu")
        return _threads


def _process_pool() -> ProcessPoolExecutor | None:
    global _processes
    with _guard:
        if _processes is None and _process_workers:
            # spawn: a fork would copy the locks the store's and the model's threads hold
            context = multiprocessing.get_context("spawn")
            _processes = ProcessPoolExecutor(
                max_workers=_process_workers, mp_context=context, initializer=_worker_start
            )
        return _processes


def _worker_start() -> None:
    # A worker ends with its parent, however the parent ends (SIGTERM, SIGKILL): an orphan
    # would hold the parent's stdout open and its memory. Ctrl-C is for the parent alone.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        sentinel = parent.sentinel
        threading.Thread(target=_end_with, args=(sentinel,), daemon=True).start()


def _end_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def _discard(pool: Executor) -> None:
    global _processes
    with _guard:
        if _processes is pool:
            _processes = None
    pool.shutdown(wait=False)


def _ready() -> None:
    # Imports what the write path sends here, so the first long add does not wait for it.
    from memhub.engine import write  # noqa: F401 (imported for its side effect)


def use_processes(workers: int = _WORKERS) -> None:
    """Run work over ``BIG`` characters in ``workers`` processes from now on (0: threads only).

    Called by a server or hub at start-up; one worker starts at once, and a second call with
    the same count changes nothing. Example:
        >>> cpu.use_processes()
    """
    global _process_workers, _processes
    with _guard:
        if workers == _process_workers:  # a second server in the process shares the pool
            return
        _process_workers, old, _processes = workers, _processes, None
    if old is not None:
        old.shutdown(wait=False)
    pool = _process_pool()
    if pool is not None:
        pool.submit(_ready)


async def run(size: int, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)``, off the calling loop when ``size`` (characters of input) is large.

    In place up to ``SMALL``; over ``BIG`` in a worker process if :func:`use_processes`
    was called (``fn`` and its arguments are pickled); otherwise on a worker thread.

    Example:
        >>> turns = await cpu.run(len(text), redact, text)
    """
    if size <= SMALL:
        return fn(*args, **kwargs)
    call = functools.partial(fn, *args, **kwargs)
    loop = asyncio.get_running_loop()
    pool = _process_pool() if size > BIG else None
    if pool is not None:
        try:
            return await loop.run_in_executor(pool, call)
        except BrokenProcessPool:  # a worker died (killed, out of memory): a new pool next time
            _discard(pool)
    return await loop.run_in_executor(_thread_pool(), call)
