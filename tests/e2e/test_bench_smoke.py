"""`make bench`'s scripts still run against the current code (small sizes; the figures are not
checked).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MADIAL = ROOT.parent / "shared" / "bench-data" / "madial"


def _run(args: list[str], tmp_path: Path, timeout: int = 300) -> str:
    env = {**os.environ, "MEMHUB_CONFIG": str(tmp_path / "config.yaml"), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_engine_bench_runs_both_engines(tmp_path):
    out = _run(
        [
            str(ROOT / "bench/engine_bench.py"),
            "--sizes",
            "300",
            "--quick",
            "--tmpdir",
            str(tmp_path),
        ],
        tmp_path,
    )
    assert "store hybrid query p50" in out and "targets:" in out
    assert "n/a (not run)" not in out  # the baseline ran too


def test_langgraph_bench_prints_put_and_step_beside_in_memory(tmp_path):
    out = _run([str(ROOT / "bench/langgraph_bench.py"), "--puts", "16", "--steps", "5"], tmp_path)
    assert "MemHubStore.put" in out and "checkpointed step" in out and "in-memory" in out


def test_procedure_bench_finds_procedures(tmp_path):
    out = _run([str(ROOT / "bench/procedure_bench.py")], tmp_path)
    assert "hybrid (search)" in out


@pytest.mark.skipif(not MADIAL.is_dir(), reason="MADial-Bench data is not next to the checkout")
def test_madial_bench_runs_on_one_language(tmp_path):
    out = _run(
        [str(ROOT / "bench/madial_bench.py"), str(MADIAL), "--lang", "en"], tmp_path, timeout=600
    )
    assert "en   conversation" in out


@pytest.mark.enable_socket
@pytest.mark.network
def test_inspector_bench_times_the_pages(tmp_path):
    out = _run([str(ROOT / "bench/inspector_bench.py"), "--n", "600", "--requests", "6"], tmp_path)
    assert "memories list" in out and "search" in out and "MISS" not in out


def test_time_bench_prints_the_as_of_ratio_and_the_resolve_cost(tmp_path):
    out = _run(
        [str(ROOT / "bench/time_bench.py"), "--size", "2000", "--queries", "20", "--rounds", "5"],
        tmp_path,
    )
    assert "per statement  p50" in out and "as_of p50" in out and "ratio" in out
