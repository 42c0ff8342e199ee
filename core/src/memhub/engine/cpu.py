"""Bounded worker threads for the CPU-bound part of a request.

An engine serves every caller from one owner loop (``memhub.engine.owner``). The
rules a write runs over its text (redaction's 80-odd formats, hashing, epistemic
cues, the heuristics) cost microseconds on a chat turn and hundreds of milliseconds
on a 1 MiB ``add``; run on the loop, that long add froze every other caller of the
engine meanwhile (682 ms, ``bench/adversarial_bench.py``). ``run`` sends such work
to a small pool instead and runs short work in place, where a thread hop would cost
more than the work.

A worker thread still shares the GIL, which a single regex call holds until it
returns, so the steps sent here each read bounded text or loop in Python (which
yields the GIL every few milliseconds); ``tests/core/test_cpu_offload.py`` holds
the loop to that.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["SMALL", "run"]

P = ParamSpec("P")
T = TypeVar("T")

# Below this many characters of input the work is done in place (~1 ms of rules at most).
SMALL = 8_192
# Two cores is the machine this is sized for; more threads would only queue on the GIL.
_WORKERS = 2

_pool: ThreadPoolExecutor | None = None
_guard = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _guard:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="memhub-cpu")
        return _pool


async def run(size: int, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)``, on a worker thread when ``size`` (characters of input) is large.

    Example:
        >>> turns = await cpu.run(len(text), redact, text)
    """
    if size <= SMALL:
        return fn(*args, **kwargs)
    call = functools.partial(fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_executor(), call)
