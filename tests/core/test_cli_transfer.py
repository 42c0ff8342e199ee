"""``memhub export`` / ``memhub import``: stdout carries the export, stderr the summary; a bad
line exits 1 after importing the rest, ``--strict`` exits 2 having imported nothing."""

from __future__ import annotations

import json

import pytest

from memhub.cli import main
from memhub.testing.offline import use_hash_embedder


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    use_hash_embedder(monkeypatch)
    monkeypatch.chdir(tmp_path)

    def invoke(store: str, *argv: str) -> tuple[int, str, str]:
        code = main(["--storage-dir", str(tmp_path / store), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def test_export_to_stdout_then_import_elsewhere(run, tmp_path):
    run("a", "memorize", "项目用 PostgreSQL 16 做主数据库", "--user-id", "u1")
    run("a", "add", "--content", "我最爱的编程语言是 Java", "--user-id", "u2")
    code, out, err = run("a", "export", "--user-id", "u1")
    assert code == 0 and "exported 1 memories" in err
    header, *lines = out.splitlines()
    assert json.loads(header)["filters"] == {"user_id": "u1"} and len(lines) == 1
    code, out, err = run("a", "export", "--output", str(tmp_path / "all.jsonl"), "--quiet")
    assert code == 0 and out.startswith("exported 3 memories") and err == ""

    code, out, _ = run("b", "--json", "import", str(tmp_path / "all.jsonl"))
    assert code == 0 and json.loads(out)["imported"] == 3
    code, out, _ = run("b", "import", str(tmp_path / "all.jsonl"))
    assert code == 0 and out.startswith("imported 0, already there 3")
    code, out, _ = run("b", "--json", "recall", "PostgreSQL", "--user-id", "u1")
    assert json.loads(out)["atoms"][0]["content"] == "项目用 PostgreSQL 16 做主数据库"


def test_bad_lines_exit_1_and_strict_exits_2_having_changed_nothing(run, tmp_path):
    run("a", "memorize", "项目用 PostgreSQL 16 做主数据库", "--user-id", "u1")
    run("a", "memorize", "部署需要人工审批", "--user-id", "u1")
    path = tmp_path / "m.jsonl"
    run("a", "export", "-o", str(path))
    header, first, second = path.read_text().splitlines()
    path.write_text("\n".join([header, first, '{"memory": 1}', second]) + "\n")
    code, _, err = run("b", "import", "--strict", str(path))
    assert code == 2 and "line 3:" in err
    code, out, _ = run("b", "--json", "stats")
    assert json.loads(out)["atoms"] == 0
    code, out, _ = run("b", "import", str(path))
    assert code == 1 and "imported 2" in out and "line 3: 'memory' must be an object" in out


def test_export_refuses_to_print_to_a_terminal(run, monkeypatch):
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    code, _, err = run("a", "export")
    assert code == 2 and "redirect" in err
