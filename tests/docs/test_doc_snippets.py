"""Every code block of the documentation site runs, and shows what the page says it shows.

Collected from ``docs/**/*.md`` (one test per block, named ``page.md:line``):

- a ```python block runs in a fresh namespace, in a temporary folder (so ``./.memhub_data`` is
  a new store), top-level ``await`` allowed. It either asserts what the reader should see, or is
  followed by a ```text block: the exact output it prints;
- a ```bash block whose every command is a ``memhub ...`` call runs those commands in order
  (in process, ``memhub.cli.app.main``), each succeeding; a ```text block after it is the
  output of the last one;
- a block that includes a file (``--8<-- "examples/x.py"``) shows a script the end-to-end
  tests run (``tests/e2e``): it must be named there (the include sits between
  ``<!-- fmt: off -->`` and ``<!-- fmt: on -->``, or ``ruff format`` would rewrite it as code);
- a block that cannot run here carries ``<!-- skip: REASON -->`` on the line above it.

The temporary folder also holds ``mem0-store/``, a store written by mem0 itself
(``tests/fixtures/mem0``), for the page on migrating from mem0.

Not collected: ``docs/benchmarks/history/`` (the rounds of measurement, kept verbatim as they
were written) and ``docs/deploy.md`` (its blocks are container and Qdrant cluster commands).
Other fences (``text``, ``yaml``, ``ts``, shell lines that are not memhub calls) are not code
a test can run here.
"""

from __future__ import annotations

import ast
import asyncio
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NOT_COLLECTED = ("benchmarks/history/", "deploy.md")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SKIP = re.compile(r"<!--\s*skip:\s*(.+?)\s*-->\s*$")
INCLUDE = re.compile(r'^--8<--\s+"([^"]+)"\s*$')
MEM0_STORE = ROOT / "tests" / "fixtures" / "mem0" / "store"


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    code: str
    expected: str | None  # the ```text block right after it
    skip: str | None


def collect() -> list[Block]:
    blocks = []
    for path in sorted(DOCS.rglob("*.md")):
        page = path.relative_to(DOCS).as_posix()
        if page.startswith(NOT_COLLECTED):
            continue
        text = path.read_text(encoding="utf-8")
        fences = list(FENCE.finditer(text))
        for i, fence in enumerate(fences):
            lang = fence.group(1)
            if lang not in ("python", "bash"):
                continue
            if lang == "bash" and not _memhub_commands(fence.group(2)):
                continue
            before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
            skip = SKIP.search(before)
            expected = None
            if i + 1 < len(fences) and fences[i + 1].group(1) == "text":
                between = text[fence.end() : fences[i + 1].start()]
                if not between.strip():
                    expected = fences[i + 1].group(2)
            blocks.append(
                Block(
                    page=page,
                    line=text.count("\n", 0, fence.start()) + 1,
                    lang=lang,
                    code=fence.group(2),
                    expected=expected,
                    skip=skip.group(1) if skip else None,
                )
            )
    return blocks


def _memhub_commands(code: str) -> list[list[str]]:
    """The commands of a shell block if every one is a memhub call, else []."""
    lines = [ln.split(" #", 1)[0].strip() for ln in code.splitlines()]
    commands = [shlex.split(ln) for ln in lines if ln and not ln.startswith("#")]
    if commands and all(c[0] in ("memhub", "hmg") for c in commands):
        return commands
    return []


BLOCKS = collect()


def test_the_pages_have_code_to_test():
    pages = {b.page for b in BLOCKS}
    assert {"getting-started.md", "concepts.md", "zh/getting-started.md", "zh/concepts.md"} <= pages
    assert sum(b.skip is not None for b in BLOCKS) * 5 < len(BLOCKS), "skips must stay rare"


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:{b.line}" for b in BLOCKS])
def test_snippet(block: Block, tmp_path, monkeypatch, capsys):
    if block.skip:
        pytest.skip(block.skip)
    monkeypatch.chdir(tmp_path)
    shutil.copytree(MEM0_STORE, tmp_path / "mem0-store")
    include = INCLUDE.match(block.code.strip())
    if include:
        _check_tested_elsewhere(include.group(1))
        return
    if block.lang == "bash":
        out = _run_commands(_memhub_commands(block.code), capsys)
    else:
        out = _run_python(block, capsys)
    if block.expected is not None:
        assert out.rstrip() == block.expected.rstrip()


def _run_python(block: Block, capsys) -> str:
    tree = ast.parse(block.code)
    if block.expected is None:
        assert any(isinstance(node, ast.Assert) for node in ast.walk(tree)), (
            "a snippet asserts what it shows, or is followed by a ```text block of its output"
        )
    code = compile(
        block.code, f"docs/{block.page}:{block.line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    )
    namespace = {"__name__": "__main__"}
    result = eval(code, namespace)  # noqa: S307 -- the docs' own code, run as the reader would
    if asyncio.iscoroutine(result):
        asyncio.run(result)
    return capsys.readouterr().out


def _run_commands(commands: list[list[str]], capsys) -> str:
    from memhub.cli.app import main

    out = ""
    for argv in commands:
        code = main(argv[1:])
        captured = capsys.readouterr()
        assert code == 0, f"{shlex.join(argv)} exited {code}: {captured.err}"
        out = captured.out
    return out


def _check_tested_elsewhere(path: str) -> None:
    assert (ROOT / path).is_file(), path
    e2e = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests" / "e2e").glob("*.py"))
    assert f'"{path}"' in e2e, f"{path} is shown in the docs but no end-to-end test runs it"
