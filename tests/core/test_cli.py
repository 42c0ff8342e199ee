"""The ``memhub``/``hmg`` command line, run in-process through ``main(argv)`` on a real store."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from memhub.cli import main
from memhub.store._lock import DirLock
from memhub.testing.offline import use_hash_embedder

ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
PG16 = "项目用 PostgreSQL 16 做主数据库，不用 MongoDB"
MISSING = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a valid id that no memory has


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


def _isolate(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    for key in [k for k in os.environ if k.startswith("MEMHUB_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("MEMHUB_CONFIG", str(folder / "cfg.yaml"))
    use_hash_embedder(monkeypatch)
    monkeypatch.chdir(folder)  # no git checkout: the scope is the same on every machine


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    # a fresh store comes from the session's empty template (tests/conftest.py)
    _isolate(monkeypatch, tmp_path)
    store = tmp_path / "store"
    capsys.readouterr()

    def run(*argv: str) -> Run:
        code = main(["--storage-dir", str(store), *argv])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    run.store = store
    return run


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def one_error_line(run: Run) -> str:
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("memhub: error: ")
    assert "Traceback" not in run.err
    return lines[0]


def memorize(cli, content: str, *flags: str) -> str:
    r = cli("--json", "memorize", content, *flags)
    assert r.code == 0, r.err
    return r.json()["atom_id"]


def snapshot(cli) -> int:
    return cli("--json", "stats").json()["snapshot_version"]


def test_guide_flow_memorize_dedupe_recall_replace_history(cli):
    first = cli("memorize", PG16)
    assert first.code == 0
    assert first.out.startswith("applied")
    (old_id,) = ULID.findall(first.out)

    again = cli("memorize", PG16)
    assert again.code == 0
    assert again.out.startswith("no_op")
    assert old_id in again.out

    found = cli("recall", "PostgreSQL 数据库")
    assert found.code == 0
    header, row = found.out.splitlines()[:2]
    assert header.split() == ["SCORE", "ID", "CREATED", "CONTENT"]
    assert re.match(rf"[01]\.\d\d +{old_id}  \d{{4}}-\d\d-\d\d  {re.escape(PG16)}$", row)

    replaced = cli(
        "correct",
        old_id,
        "replace",
        "--reason",
        "已升级到 PostgreSQL 17",
        "--new-content",
        "项目用 PostgreSQL 17 做主数据库",
    )
    assert replaced.code == 0, replaced.err
    new_id = next(i for i in ULID.findall(replaced.out) if i != old_id)

    after = cli("recall", "PostgreSQL 数据库")
    assert new_id in after.out
    assert old_id not in after.out

    history = cli("history", new_id)
    assert history.code == 0
    assert re.search(rf"^supersedes\s+{old_id}$", history.out, re.M)
    assert re.search(rf"^chain\s+{old_id} -> {new_id}$", history.out, re.M)
    step = next(line for line in history.out.splitlines() if "已升级到 PostgreSQL 17" in line)
    assert step.split()[:4] == ["-", "->", "active", "replace"]
    assert "agent" in step


def test_correct_confirm_and_demote_move_epistemic(cli):
    atom = memorize(cli, "API 网关可能用 Kong", "--epistemic", "possible")
    r = cli("correct", atom, "confirm_actual", "--reason", "在配置里确认了")
    assert r.code == 0
    assert r.out.split()[:3] == ["applied", "confirm_actual", atom]
    assert "epistemic=actual" in r.out
    r = cli("--json", "correct", atom, "demote", "--reason", "其实还没定")
    assert r.json()["epistemic"] == "possible"
    history = cli("--json", "history", atom).json()
    steps = [(s["from"], s["to"], s["reason"]) for s in history["epistemic_history"]]
    assert steps == [("possible", "actual", "在配置里确认了"), ("actual", "possible", "其实还没定")]


def test_correct_negate_hides_from_recall(cli):
    atom = memorize(cli, "用 MongoDB 做会话缓存")
    r = cli("correct", atom, "negate", "--reason", "方案已废弃，改用 Redis")
    assert r.code == 0
    assert "status=negated" in r.out
    assert cli("recall", "MongoDB 会话缓存").out.strip() == "no memories found"


def test_govern_derive_lesson_seals_the_original(cli):
    secret = memorize(cli, "数据库密码是 pg_admin_123")
    r = cli(
        "govern",
        secret,
        "derive_lesson",
        "--reason",
        "内容含明文数据库密码",
        "--lesson-content",
        "不要在记忆中存储数据库密码，使用环境变量",
    )
    assert r.code == 0, r.err
    assert "exposure=sealed" in r.out
    lesson = re.search(r"lesson=(\S+)", r.out).group(1)

    history = cli("history", secret)
    assert "pg_admin_123" not in history.out
    assert re.search(rf"^related_lessons\s+{lesson}$", history.out, re.M)
    assert re.search(r"visible -> sealed\s+derive_lesson\s+内容含明文数据库密码", history.out)
    assert secret in cli("history", lesson).out


def test_handoff_then_context_shows_it_before_constraints(cli):
    rule = memorize(cli, "所有 API 必须加认证", "--epistemic", "necessary")
    r = cli("handoff", "修复了 login.py 的空指针问题。下一步：补集成测试。")
    assert r.code == 0
    (handoff_id,) = ULID.findall(r.out)

    context = cli("context")
    assert context.code == 0
    out = context.out
    assert out.startswith(f"latest handoff  {handoff_id}")
    assert out.index("修复了 login.py") < out.index("constraints (necessary)") < out.index(rule)

    data = cli("--json", "context").json()
    assert data["handoff"]["atom_id"] == handoff_id
    assert [a["atom_id"] for a in data["constraints"]] == [rule]


def test_context_on_an_empty_store(cli):
    r = cli("context")
    assert r.code == 0
    assert r.out.splitlines() == ["latest handoff: none yet", "", "constraints: none"]


def test_memorize_and_handoff_read_stdin_for_dash(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("从标准输入读入的一条事实\n"))
    atom = memorize(cli, "-")
    assert cli("--json", "history", atom).json()["current"]["content"] == "从标准输入读入的一条事实"


def test_stats_table_and_json(cli):
    memorize(cli, PG16)
    r = cli("stats")
    assert r.code == 0
    rows = dict(line.rsplit(None, 1) for line in r.out.splitlines())
    assert rows["METRIC"] == "VALUE"
    assert rows["atoms"] == "1"
    assert rows["index semantic"] == "1"
    data = cli("stats", "--json").json()
    assert data["atoms"] == 1
    assert set(data["indexes"]) == {"semantic", "keyword", "temporal", "categorical"}


def test_json_output_of_every_command_parses(cli):
    m = cli("--json", "memorize", PG16).json()
    assert m["effect"] == "applied"
    assert cli("--json", "memorize", PG16).json()["effect"] == "no_op"
    hits = cli("--json", "recall", "PostgreSQL", "--limit", "1").json()["atoms"]
    assert [h["atom_id"] for h in hits] == [m["atom_id"]]
    assert 0 < hits[0]["score"] <= 1
    c = cli(
        "--json",
        "correct",
        m["atom_id"],
        "replace",
        "--reason",
        "升级",
        "--new-content",
        "项目用 PostgreSQL 17 做主数据库",
    ).json()
    assert c["new_atom_id"]
    h = cli("--json", "history", c["new_atom_id"]).json()
    assert h["relations"]["supersedes"] == [m["atom_id"]]
    assert {"from", "to", "reason", "by", "at"} <= set(h["status_history"][0])
    g = cli("--json", "govern", c["new_atom_id"], "quarantine", "--reason", "待确认").json()
    assert g["exposure_state"] == "quarantined"
    assert cli("--json", "handoff", "今天的交接").json()["atom_id"]
    assert cli("--json", "purge", "--yes").json() == {"purged": True}


def test_global_options_work_after_the_command_and_scope_overrides_apply(cli):
    atom = memorize(cli, PG16, "--repository", "acme/api")
    assert cli("recall", "PostgreSQL").out.strip() == "no memories found"
    assert atom in cli("recall", "PostgreSQL", "--repository", "acme/api").out
    assert atom in cli("--repository", "*", "recall", "PostgreSQL").out
    assert (
        cli("recall", "PostgreSQL", "--repository", "acme/web").out.strip() == "no memories found"
    )


def test_an_id_written_in_a_repository_is_reached_from_the_home_directory(cli, monkeypatch):
    # What a new user tries: memorize inside a checkout, then ask for the id from ~.
    repo = cli.store.parent / "web"
    git = repo / ".git"
    git.mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "config").write_text('[remote "origin"]\n\turl = git@github.com:acme/web.git\n')
    home = cli.store.parent / "home"
    home.mkdir()
    monkeypatch.chdir(repo)
    atom_id = memorize(cli, "部署前先跑 make check")

    monkeypatch.chdir(home)
    assert cli("--json", "recall", "部署").json()["atoms"] == []  # recall still narrows
    shown = cli("--json", "history", atom_id)
    assert shown.code == 0, shown.err
    assert shown.json()["current"]["scope"]["repository"] == "acme/web"
    fixed = cli("--json", "correct", atom_id, "confirm_necessary", "--reason", "CI enforces it")
    assert fixed.code == 0, fixed.err
    assert fixed.json()["epistemic"] == "necessary"
    # another user's call still answers like a missing id
    other = cli("history", atom_id, "--user-id", "mallory")
    assert other.code == cli("history", MISSING, "--user-id", "mallory").code == 3


def test_unknown_id_exits_3(cli):
    for argv in (("history", MISSING), ("correct", MISSING, "negate", "--reason", "x")):
        r = cli(*argv)
        assert r.code == 3
        assert one_error_line(r) == f"memhub: error: no memory with id {MISSING}"
        assert r.out == ""


def test_malformed_id_is_a_usage_error(cli):
    r = cli("history", "not-an-id")
    assert r.code == 2
    assert "not a memory id" in one_error_line(r)


def test_confirm_actual_on_a_necessary_atom_exits_4(cli):
    atom = memorize(cli, "所有 API 必须加认证", "--epistemic", "necessary")
    before = snapshot(cli)
    r = cli("correct", atom, "confirm_actual", "--reason", "确认")
    assert r.code == 4
    assert "demote it (to possible) first" in one_error_line(r)
    assert snapshot(cli) == before


def test_missing_reason_and_missing_new_content_exit_2(cli):
    atom = memorize(cli, PG16)
    before = snapshot(cli)
    r = cli("correct", atom, "negate")
    assert r.code == 2
    assert "--reason" in one_error_line(r)

    r = cli("correct", atom, "replace", "--reason", "升级")
    assert r.code == 2
    assert "--new-content" in one_error_line(r)

    r = cli("govern", atom, "derive_lesson", "--reason", "含密码")
    assert r.code == 2
    assert "--lesson-content" in one_error_line(r)
    assert snapshot(cli) == before


def test_usage_errors_are_one_line(cli):
    for argv in (
        ("correct", MISSING, "rewrite", "--reason", "x"),
        ("recall",),
        ("nope",),
        ("recall", "x", "--limit", "many"),
        ("memorize", "x", "--epistemic", "sure"),
    ):
        r = cli(*argv)
        assert r.code == 2, argv
        one_error_line(r)
    r = cli("recall", "x", "--limit", "0")
    assert r.code == 2
    assert "limit must be between 1 and 200" in one_error_line(r)


def test_no_command_prints_help_and_exits_2(cli):
    r = cli()
    assert r.code == 2
    assert "memorize" in r.err and "purge" in r.err


def test_version_and_help_exit_0(cli):
    r = cli("--version")
    assert r.code == 0
    assert re.fullmatch(r"memhub \S+\n", r.out)
    r = cli("correct", "--help")
    assert r.code == 0
    assert "--new-content" in r.out and "--storage-dir" in r.out


def test_store_locked_exits_5(cli):
    lock = DirLock(cli.store)
    memorize(cli, PG16)  # creates the store
    lock.acquire()
    try:
        r = cli("stats")
    finally:
        lock.release()
    assert r.code == 5
    assert "in use by process" in one_error_line(r)


def test_debug_env_shows_the_traceback(cli, monkeypatch):
    monkeypatch.setenv("MEMHUB_DEBUG", "1")
    r = cli("history", MISSING)
    assert r.code == 3
    assert "Traceback" in r.err
    assert r.err.rstrip().endswith(f"memhub: error: no memory with id {MISSING}")


def test_purge_without_yes_on_a_pipe_refuses_and_changes_nothing(cli):
    memorize(cli, PG16)
    before = snapshot(cli)
    r = cli("purge")
    assert r.code == 2
    assert "--yes" in one_error_line(r)
    assert snapshot(cli) == before


def test_purge_asks_on_a_terminal(cli, monkeypatch):
    memorize(cli, PG16)
    before = snapshot(cli)
    monkeypatch.setattr(sys, "stdin", FakeTty("n\n"))
    r = cli("purge")
    assert r.code == 1
    assert "[y/N]" in r.err
    assert snapshot(cli) == before

    monkeypatch.setattr(sys, "stdin", FakeTty("y\n"))
    r = cli("purge")
    assert r.code == 0
    assert r.out.startswith("purged")
    assert snapshot(cli) == before + 1


def test_purge_with_yes(cli):
    before = snapshot(cli)
    r = cli("purge", "--yes")
    assert r.code == 0
    assert snapshot(cli) == before + 1


def test_hmg_console_script_prints_json_stats(tmp_path):
    hmg = Path(sys.executable).parent / "hmg"
    assert hmg.exists(), "the hmg console script is not installed in this venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHUB_")}
    env["MEMHUB_CONFIG"] = str(tmp_path / "cfg.yaml")
    proc = subprocess.run(
        [str(hmg), "--storage-dir", str(tmp_path / "store"), "--json", "stats"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["atoms"] == 0
    assert data["snapshot_version"] == 0
