"""The core examples and the demo run offline, as a user would run them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    (
        "examples/hmg_guide_demo.py",
        [
            "effect=no_op",
            "项目用 PostgreSQL 17 做主数据库",
            "still recalled: False",
            "[governed payload hidden: sealed]",
            "next session starts with: 修复了 login.py",
            "'snapshot_version'",
        ],
    ),
    (
        "examples/quickstart.py",
        [
            "recall: 项目用 PostgreSQL 16 做主数据库，不用 MongoDB",
            "supersedes: True",
            "profile: 我最爱的编程语言是 Java",
        ],
    ),
    (
        "examples/06_coding_memory.py",
        [
            "coding ['",
            "app/db.py 高并发写入偶发 database is locked -> 写事务改为 BEGIN IMMEDIATE",
            "['app/db.py'] []",
            "now: 改用 WAL 模式",
        ],
    ),
    ("examples/langgraph_memory_graph.py", []),
    (
        "examples/langgraph_store_memories.py",
        [
            "User memories:\n- I moved to Munich last month\n",
            "alice's memories: ['I moved to Munich last month']",
        ],
    ),
]


@pytest.mark.parametrize(("script", "expected"), CASES, ids=[c[0] for c in CASES])
def test_example_runs_offline(script, expected, tmp_path):
    env = {**os.environ, "MEMHUB_CONFIG": str(tmp_path / "config.yaml")}
    done = subprocess.run(
        [sys.executable, str(ROOT / script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for line in expected:
        assert line in done.stdout, f"{line!r} missing from:\n{done.stdout}"
    assert "TOOL" not in done.stdout and not list(tmp_path.glob(".memhub_data"))
