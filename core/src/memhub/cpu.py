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
that serves others calls :func:`use_processes`: from then on work over ``SMALL``
characters runs in worker processes (``memhub._cpu_worker``), with their own
GIL, and the loop keeps its own: on a loaded machine even a Python loop that gives the
GIL up every 5 ms stalls the loop when the kernel preempts it while it holds the GIL.
A worker costs its start (about a second, one starts at once), a copy of the input and
the result (about a millisecond per MiB) and a pipe round trip; a function sent there
must be importable by name (no lambdas). The SDK stays in one process unless asked: a
library should not start processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from memhub import _cpu_worker

__all__ = ["SMALL", "run", "use_processes"]

P = ParamSpec("P")
T = TypeVar("T")

# Below this many characters of input the work is done in place (~1 ms of rules at most).
SMALL = 8_192
# Two cores is the machine this is sized for; more threads would only queue on the GIL.
_WORKERS = 2

_threads: ThreadPoolExecutor | None = None
_processes: _Processes | None = None
_guard = threading.Lock()


class Lost(Exception):
    """A worker process died during a call (killed, out of memory)."""


CLOSE_WAIT_S = 5.0


class Worker:
    """One worker process (``memhub._cpu_worker``), serving one call at a time."""

    def __init__(self) -> None:
        # the parent's import path, so the worker imports the same modules
        path = os.pathsep.join(p for p in sys.path if p)
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from memhub._cpu_worker import main; main()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path},
        )

    def call(self, call: functools.partial[Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            _cpu_worker.send(self.process.stdin, (call.func, call.args, call.keywords))
        except (BrokenPipeError, OSError) as err:
            raise Lost from err
        try:
            ok, value = _cpu_worker.receive(self.process.stdout)
        except (EOFError, OSError) as err:
            raise Lost from err
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """Let the process end (stdin closed is its cue), and reap it: an idle worker exits
        at once; one that does not within ``CLOSE_WAIT_S`` is killed."""
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(BrokenPipeError):  # a dead worker's unsent bytes
                    pipe.close()
        try:
            self.process.wait(timeout=CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """End the process now, whatever it was doing, and reap it (its pipes stay open:
        a thread may still be reading from it, and gets the end of the stream)."""
        self.process.kill()
        self.process.wait()


class _Processes:
    """Up to ``size`` worker processes, each serving one call at a time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        # threads that wait on a worker's pipe (the GIL is free meanwhile), apart from the
        # threads that do the medium work themselves
        self.waiters = ThreadPoolExecutor(max_workers=size, thread_name_prefix="memhub-cpu-wait")
        self._started = 1
        self._idle.put(Worker())  # started now: importing memhub takes it about a second

    def _take(self) -> Worker:
        with self._lock:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                if self._started < self.size:
                    self._started += 1
                    return Worker()
        return self._idle.get()  # every worker is busy: wait for one

    def _give(self, worker: Worker, *, lost: bool = False) -> None:
        with self._lock:
            if not lost and not self._closed:
                self._idle.put(worker)
                return
            self._started -= 1
        worker.close()

    def run(self, call: functools.partial[Any]) -> Any:
        worker = self._take()
        try:
            result = worker.call(call)
        except Lost:
            self._give(worker, lost=True)
            raise
        except BaseException:
            self._give(worker)
            raise
        self._give(worker)
        return result

    def close(self) -> None:
        with self._lock:
            self._closed = True
            while True:
                try:
                    self._idle.get_nowait().close()
                except queue.Empty:
                    break
        self.waiters.shutdown(wait=False)


def _thread_pool() -> ThreadPoolExecutor:
    global _threads
    with _guard:
        if _threads is None:
            _threads = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="memhub-cpu")
        return _threads


def use_processes(workers: int = _WORKERS) -> None:
    """Run work over ``SMALL`` characters in ``workers`` processes from now on (0: threads).

    Called by a server or hub at start-up; one worker starts at once, and a second call with
    the same count changes nothing. Example:
        >>> cpu.use_processes()
    """
    global _processes
    with _guard:
        old = _processes
        if (old.size if old else 0) == workers:  # a second server in the process shares them
            return
        _processes = _Processes(workers) if workers else None
    if old is not None:
        old.close()


async def run(size: int, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)``, off the calling loop when ``size`` (characters of input) is large.

    In place up to ``SMALL``; beyond, in a worker process if :func:`use_processes` was
    called (``fn`` and its arguments are pickled), otherwise on a worker thread.

    Example:
        >>> turns = await cpu.run(len(text), redact, text)
    """
    if size <= SMALL:
        return fn(*args, **kwargs)
    call = functools.partial(fn, *args, **kwargs)
    loop = asyncio.get_running_loop()
    processes = _processes
    if processes is not None:
        try:
            result: T = await loop.run_in_executor(processes.waiters, processes.run, call)
            return result
        except Lost:  # the work is pure: done again here, and a new worker next time
            pass
    return await loop.run_in_executor(_thread_pool(), call)
