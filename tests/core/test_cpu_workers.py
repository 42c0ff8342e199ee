"""Where the rules over a write's text run: in place, on a worker thread, or, in a server,
in a worker process that does not share the server's GIL (``memhub.cpu``).

``/health`` beside a 1 MiB add is measured by ``bench/adversarial_bench.py``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from memhub import cpu
from memhub.errors import InvalidInputError

SECRET = "password=hunter2secret"


def _where() -> tuple[int, str]:
    return os.getpid(), threading.current_thread().name


@pytest.fixture
def processes():
    cpu.use_processes(1)
    yield
    cpu.use_processes(0)


@pytest.fixture
def threads_only():
    cpu.use_processes(0)  # a server fixture of an earlier test may have asked for processes


async def test_without_processes_long_work_runs_on_a_thread_of_this_process(threads_only):
    assert await cpu.run(10, _where) == _where()
    pid, thread = await cpu.run(cpu.SMALL + 1, _where)
    assert pid == os.getpid() and thread.startswith("memhub-cpu")


async def test_a_server_sends_long_work_to_a_worker_process(processes):
    assert await cpu.run(cpu.SMALL, _where) == _where()
    pid, _ = await cpu.run(cpu.SMALL + 1, _where)
    assert pid != os.getpid()


async def test_a_long_add_in_a_worker_process_is_redacted_indexed_and_refused_alike(
    client, processes
):
    body = [
        {
            "role": "user",
            "id": f"m{i}",
            "content": f"{SECRET} {'我住在上海 ' * 12_000} zebra{i} ends it.",
        }
        for i in range(2)
    ]
    assert len(body[0]["content"]) > 65_536
    await client.add(messages=body, user_id="u")
    turns = (await client.search_conversation("zebra1", user_id="u")).turns
    assert turns[0].content.endswith("zebra1 ends it.")
    assert "hunter2secret" not in turns[0].content and "[REDACTED:" in turns[0].content
    # an error raised in the worker comes back as itself and changes nothing
    with pytest.raises(InvalidInputError, match="no user or assistant text"):
        await client.add(messages=[{"role": "system", "content": "x" * cpu.SMALL * 2}], user_id="v")
    assert await client.list(user_id="v") == []


async def test_a_killed_worker_process_costs_one_call_a_thread_then_a_new_process(processes):
    worker, _ = await cpu.run(cpu.SMALL + 1, _where)
    os.kill(worker, signal.SIGKILL)
    answers = [(await cpu.run(cpu.SMALL + 1, _where))[0] for _ in range(3)]
    assert os.getpid() in answers[:2]  # the broken pool is noticed, the call still answered
    assert answers[-1] not in (os.getpid(), worker)


def test_a_worker_process_ends_with_its_parent_even_when_the_parent_is_killed():
    script = textwrap.dedent(
        """
        import asyncio, os, signal
        from memhub import cpu
        cpu.use_processes(1)
        print(asyncio.run(cpu.run(cpu.SMALL + 1, os.getpid)), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    parent = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    worker = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 30
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)


def test_a_script_without_a_main_guard_runs_once(tmp_path):
    script = tmp_path / "serve.py"
    script.write_text(
        "import asyncio, os\n"
        "from memhub import cpu\n"
        "cpu.use_processes(1)\n"
        "print('started', flush=True)\n"
        "print(asyncio.run(cpu.run(cpu.SMALL + 1, os.getpid)) != os.getpid(), flush=True)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["started", "True"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_the_heuristic_extractor_finds_the_same_facts_in_a_worker_process(processes):
    from memhub.providers.heuristic import HeuristicExtractor, extract_candidates
    from memhub.providers.types import Message

    said = [Message(role="user", content="I live in Berlin. 我喜欢喝咖啡。", id="m1")]
    found = await HeuristicExtractor().extract(said)
    assert found and found == extract_candidates(said)
