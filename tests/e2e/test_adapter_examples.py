"""The adapter examples and the support-bot cookbook run offline, end to end, as a user would run
them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    (
        "memhub_langchain",
        "examples/langchain_middleware.py",
        ["memory reached the prompt: True", "bob sees 0 of alice's memories", "raw turn kept:"],
    ),
    (
        "memhub_llamaindex",
        "examples/llamaindex_memory.py",
        [
            "memory reached the prompt: True",
            "raw turn kept: 'My sister Mia visits me in June.' (session s1)",
        ],
    ),
    (
        "memhub_agentica",
        "examples/agentica_memory.py",
        [
            "Assistant: 我了解到：我最喜欢的颜色是蓝色；我喜欢吃川菜",
            "Session persisted: memory_id=",
            "commit=True",
            "memory reached the prompt: True",
        ],
    ),
    (
        "memhub_langchain",
        "cookbook/support_bot.py",
        [
            "remembered product and plan: True",
            "Dana's details stayed private: True",
            "uses the corrected plan: True",
            "history kept: True",
        ],
    ),
]


@pytest.mark.parametrize(("package", "script", "expected"), CASES, ids=[c[1] for c in CASES])
def test_example_runs_offline(package, script, expected, tmp_path):
    pytest.importorskip(package)
    env = {
        **os.environ,
        "MEMHUB_CONFIG": str(tmp_path / "config.yaml"),
        "AGENTICA_HOME": str(tmp_path / "agentica"),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for line in expected:
        assert line in done.stdout, f"{line!r} missing from:\n{done.stdout}"
    assert not list(tmp_path.glob(".memhub_data")), "an example wrote to the working directory"
