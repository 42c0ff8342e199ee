"""memhub capture: Claude Code, Codex and OpenCode sessions become memories, tool
outputs never do.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from pathlib import Path

import pytest
from store_files import files_containing

import memhub.capture
from memhub import MemoryClient
from memhub.capture import _batches, claude_code, codex, opencode
from memhub.cli import main
from memhub.testing import HashEmbedder
from memhub.testing.offline import use_hash_embedder

FIXTURES = Path(__file__).parent.parent / "fixtures" / "capture"
MARKER = "TOOL-OUTPUT-MARKER-123"
CC_LOCKED = "5f0c2d1e-8a4b-4c7e-9d2f-1b3a5c7e9f01"  # the database-is-locked session
CC_PYTEST = "9a7be3c4-1d2e-4f60-8a1b-2c3d4e5f6a7b"
CODEX_LOCKED = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
CODEX_BLOG = "0199a3f0-7b6c-7d5e-9f40-1a2b3c4d5e6f"
PROBLEM = "app/db.py 高并发写入偶发 database is locked"


def _cc_file(root: Path, session: str) -> Path:
    return next(root.rglob(f"{session}.jsonl"))


def _codex_file(root: Path, session: str) -> Path:
    return next(root.rglob(f"rollout-*-{session}.jsonl"))


def _calls(messages: list[dict]) -> list[tuple[str, dict]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for m in messages
        for c in m.get("tool_calls", [])
    ]


def _append(path: Path, *records: dict) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _cc_turn(session: str, role: str, text: str, at: str, uuid: str) -> dict:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/shop",
        "sessionId": session,
        "version": "2.0.14",
        "gitBranch": "main",
        "type": role,
        "message": {"role": role, "content": text}
        if role == "user"
        else {
            "id": f"msg_{uuid}",
            "type": "message",
            "role": role,
            "content": [{"type": "text", "text": text}],
        },
        "uuid": uuid,
        "timestamp": at,
    }


# -- parsing ---------------------------------------------------------------------------


def test_claude_code_session_becomes_openai_messages():
    t = claude_code.parse(_cc_file(FIXTURES, CC_LOCKED))
    assert (t.info.session_id, t.info.cwd, t.info.branch) == (
        CC_LOCKED,
        "/home/dev/shop",
        "fix/sqlite-locked",
    )
    assert t.info.started_at == "2026-11-01T09:00:02.118Z"
    assert [m["role"] for m in t.messages] == [
        "user",
        "assistant",
        "assistant",
        "assistant",
        "assistant",
    ]
    assert t.messages[0]["content"].startswith(PROBLEM)
    # the narration and the Read call of one API response are one assistant message
    assert t.messages[1]["content"] == "先看一下 app/db.py 里连接和事务是怎么建的。"
    assert _calls(t.messages)[0] == ("Read", {"file_path": "/home/dev/shop/app/db.py"})
    assert [name for name, _ in _calls(t.messages)] == ["Read", "Grep", "Edit"]
    assert "BEGIN IMMEDIATE" in t.messages[-1]["content"]
    everything = json.dumps(t.messages, ensure_ascii=False)
    assert MARKER not in everything  # tool results, toolUseResult: never read
    for noise in (
        "Caveat:",
        "<command-name>",
        "<local-command-stdout>",
        "system-reminder",
        "concurrent order writes",
        "EpIBCkYIBxgCKkB",
    ):
        assert noise not in everything
    assert not [m for m in t.messages if m["role"] == "tool"]


def test_claude_code_skips_compaction_interruptions_and_subagents():
    found = claude_code.discover(FIXTURES / "claude-code")
    assert sorted(p.stem for p in found) == sorted(
        [CC_LOCKED, CC_PYTEST, "c3d4e5f6-0718-4293-a4b5-c6d7e8f90123"]
    )
    t = claude_code.parse(_cc_file(FIXTURES, CC_PYTEST))
    assert [(m["role"], m["content"][:6]) for m in t.messages] == [
        ("user", "pytest"),
        ("assistant", "用节点 id"),
    ]
    blog = claude_code.parse(next(FIXTURES.rglob("c3d4e5f6-*.jsonl")))
    assert blog.info.branch is None  # gitBranch "" and the folder does not exist here


def test_codex_rollout_becomes_openai_messages():
    t = codex.parse(_codex_file(FIXTURES, CODEX_LOCKED))
    assert (t.info.session_id, t.info.cwd, t.info.branch) == (
        CODEX_LOCKED,
        "/home/dev/shop",
        "fix/sqlite-locked",
    )
    assert [m["role"] for m in t.messages] == ["user", "assistant", "assistant", "assistant"]
    assert t.messages[0]["content"] == "app/db.py 高并发写入偶发 database is locked，怎么改？"
    (shell, shell_args), (patch, patch_args) = _calls(t.messages)
    assert shell == "shell" and "app/db.py" in shell_args["command"][-1]
    assert patch == "apply_patch" and patch_args["paths"] == ["app/db.py"]
    assert "BEGIN IMMEDIATE" in t.messages[-1]["content"]
    everything = json.dumps(t.messages, ensure_ascii=False)
    assert MARKER not in everything  # function_call_output, exec_command_end: never read
    for noise in (
        "environment_context",
        "AGENTS.md",
        "permissions instructions",
        "Inspecting the connection",
    ):
        assert noise not in everything


def test_codex_local_shell_and_web_search_are_tool_calls_and_context_fragments_are_not_user_text():
    t = codex.parse(_codex_file(FIXTURES, CODEX_BLOG))
    assert [name for name, _ in _calls(t.messages)] == ["local_shell", "web_search"]
    assert _calls(t.messages)[0][1]["command"] == ["npm", "ls", "remark-gfm"]
    assert [m["content"] for m in t.messages if m["role"] == "user"] == [
        "博客首页构建时报 Cannot find module 'remark-gfm'"
    ]
    assert t.info.branch is None  # no git info and /home/dev/blog does not exist here


def test_branch_comes_from_the_checkout_when_the_transcript_has_none(tmp_path):
    checkout = tmp_path / "blog"
    (checkout / ".git").mkdir(parents=True)
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/feature/wal\n")
    rollout = tmp_path / "rollout-2026-11-01T15-40-00-x.jsonl"
    text = _codex_file(FIXTURES, CODEX_BLOG).read_text(encoding="utf-8")
    rollout.write_text(
        text.replace('"/home/dev/blog"', json.dumps(str(checkout))), encoding="utf-8"
    )
    assert codex.parse(rollout).info.branch == "feature/wal"


def test_a_grown_session_is_read_from_its_cursor(tmp_path):
    path = tmp_path / f"{CC_PYTEST}.jsonl"
    shutil.copy(_cc_file(FIXTURES, CC_PYTEST), path)
    first = claude_code.parse(path)
    _append(
        path,
        _cc_turn(CC_PYTEST, "user", "还想加 retry", "2026-11-02T08:00:00Z", "u-1"),
        _cc_turn(CC_PYTEST, "assistant", "用指数退避重试三次", "2026-11-02T08:00:05Z", "a-1"),
    )
    grown = claude_code.parse(path, first.end, first.info)
    assert [m["content"] for m in grown.messages] == ["还想加 retry", "用指数退避重试三次"]
    assert grown.info.session_id == CC_PYTEST and grown.info.started_at == first.info.started_at
    assert grown.end.lines == first.end.lines + 2 and grown.end.bytes == path.stat().st_size
    # a line being written right now is left for the next read
    half = json.dumps(
        _cc_turn(CC_PYTEST, "user", "第三个问题", "2026-11-02T09:00:00Z", "u-2"), ensure_ascii=False
    )
    with path.open("a", encoding="utf-8") as f:
        f.write(half[:40])
    assert claude_code.parse(path, grown.end, grown.info).messages == []
    with path.open("a", encoding="utf-8") as f:
        f.write(half[40:] + "\n")
    assert [m["content"] for m in claude_code.parse(path, grown.end, grown.info).messages] == [
        "第三个问题"
    ]


def test_a_session_beyond_adds_message_limit_is_added_in_batches_cut_at_user_turns():
    turns = [
        {"role": role, "content": f"{role} {i}"} for i in range(6) for role in ("user", "assistant")
    ]
    batches = _batches(turns, limit=5)
    assert [len(b) for b in batches] == [4, 4, 4] and sum(batches, []) == turns
    assert all(b[0]["role"] == "user" for b in batches)
    assert _batches(turns) == [turns]


def test_public_surface():
    assert sorted(memhub.capture.__all__) == sorted(
        [
            "PARSERS",
            "STATE_FILE",
            "CaptureReport",
            "CaptureState",
            "Cursor",
            "SessionInfo",
            "Transcript",
            "capture",
            "claude_code",
            "codex",
            "opencode",
        ]
    )
    assert sorted(memhub.capture.PARSERS) == ["claude-code", "codex", "opencode"]


# -- the command -----------------------------------------------------------------------


@pytest.fixture
def sessions(tmp_path) -> Path:
    """A copy of the fixture sessions that a test may append to."""
    root = tmp_path / "sessions"
    shutil.copytree(FIXTURES, root)
    return root


@pytest.fixture
def store(tmp_path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def run(store, tmp_path, monkeypatch, capsys):
    use_hash_embedder(monkeypatch)
    monkeypatch.chdir(tmp_path)

    def invoke(*argv: str) -> tuple[int, str, str]:
        code = main(["--storage-dir", str(store), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def _payloads(store: Path) -> list[dict]:
    async def scan() -> list[dict]:
        async with MemoryClient(storage_dir=store, embed=HashEmbedder()) as client:
            found = []
            for collection in ("memories", "events", "meta"):
                points, _ = await client.engine.store.scroll(collection, None, limit=10_000)
                found += [p.payload for p in points]
            return found

    return asyncio.run(scan())


def test_capture_stores_the_conversation_and_never_a_tool_output(run, sessions, store):
    code, out, err = run(
        "capture", "claude-code", "--path", str(sessions / "claude-code"), "--user-id", "alice"
    )
    assert (code, out.strip(), err) == (
        0,
        "captured 3 new sessions, 0 updated, 0 unchanged (10 messages)",
        "",
    )
    code, out, _ = run("capture", "codex", "--path", str(sessions / "codex"), "--user-id", "alice")
    assert out.strip() == "captured 2 new sessions, 0 updated, 0 unchanged (8 messages)"

    payloads = _payloads(store)
    problem = [
        p for p in payloads if p.get("layer") == "raw" and p.get("content", "").startswith(PROBLEM)
    ]
    assert {p["session_id"] for p in problem} == {CC_LOCKED, CODEX_LOCKED}
    for p in problem:
        assert (p["user_id"], p["workspace"], p["branch"]) == (
            "alice",
            "/home/dev/shop",
            "fix/sqlite-locked",
        )
    assert {p["metadata"]["source"] for p in problem} == {"claude-code", "codex"}
    assert MARKER not in json.dumps(payloads, ensure_ascii=False)
    assert files_containing(store, MARKER.encode()) == []  # not in the store, not in the state file


def test_a_second_run_adds_nothing_and_a_grown_session_only_its_new_part(run, sessions, store):
    where = ("--path", str(sessions / "claude-code"), "--user-id", "alice")
    run("capture", "claude-code", *where)
    assert run("capture", "claude-code", *where)[1].strip() == (
        "captured 0 new sessions, 0 updated, 3 unchanged (0 messages)"
    )
    _append(
        _cc_file(sessions, CC_PYTEST),
        _cc_turn(
            CC_PYTEST,
            "user",
            "test_concurrent_writes 偶尔超时，要不要加重试？",
            "2026-11-02T08:00:00Z",
            "u-9",
        ),
        _cc_turn(
            CC_PYTEST, "assistant", "加指数退避重试，最多三次。", "2026-11-02T08:00:07Z", "a-9"
        ),
    )
    assert run("capture", "claude-code", *where)[1].strip() == (
        "captured 0 new sessions, 1 updated, 2 unchanged (2 messages)"
    )
    code, out, _ = run("--json", "search-conversation", "指数退避重试", "--user-id", "alice")
    top = json.loads(out)["turns"][0]
    assert (top["content"], top["session_id"]) == ("加指数退避重试，最多三次。", CC_PYTEST)
    raw = [
        p["content"]
        for p in _payloads(store)
        if p.get("layer") == "raw" and p.get("session_id") == CC_PYTEST
    ]
    assert len(raw) == 4 and len(set(raw)) == 4  # two old turns once each, two new ones


def test_dry_run_reports_and_writes_nothing(run, sessions, store):
    code, out, _ = run(
        "capture", "codex", "--path", str(sessions / "codex"), "--user-id", "alice", "--dry-run"
    )
    assert (code, out.strip()) == (
        0,
        "dry run: would capture 2 new sessions, 0 updated, 0 unchanged (8 messages)",
    )
    assert not store.exists()


def test_a_malformed_line_is_skipped_with_a_warning(run, sessions, store):
    path = _cc_file(sessions, CC_LOCKED)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(
        "".join([*lines[:6], '{"type": "user", "message": {"role": "us\n', *lines[6:]]),
        encoding="utf-8",
    )
    code, out, err = run(
        "capture", "claude-code", "--path", str(sessions / "claude-code"), "--user-id", "alice"
    )
    assert (
        code == 0 and out.strip() == "captured 3 new sessions, 0 updated, 0 unchanged (10 messages)"
    )
    assert err.count("warning") == 1 and f"{path.name}:7: not JSON" in err
    assert any("BEGIN IMMEDIATE" in p.get("content", "") for p in _payloads(store))


def test_since_leaves_older_sessions_out(run, sessions):
    code, out, _ = run(
        "capture",
        "claude-code",
        "--path",
        str(sessions / "claude-code"),
        "--user-id",
        "alice",
        "--since",
        "2026-11-01",
    )
    assert out.strip() == "captured 2 new sessions, 0 updated, 0 unchanged (7 messages)"


def test_bad_arguments_are_usage_errors(run, tmp_path):
    code, _, err = run("capture", "codex", "--path", str(tmp_path / "missing"))
    assert code == 2 and "not a folder" in err
    code, _, err = run("capture", "codex", "--since", "last tuesday")
    assert code == 2 and "not a date" in err


def test_many_sessions_show_a_bar_with_rate_and_eta_on_a_terminal(run, sessions, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code, out, _ = run(
        "capture", "claude-code", "--path", str(sessions / "claude-code"), "--user-id", "alice"
    )
    assert code == 0 and out.startswith("captured 3 new sessions")
    drawn = terminal.getvalue()
    assert "capture claude-code" in drawn and "3/3" in drawn and "sessions/s" in drawn
    terminal.truncate(0)
    code, _, _ = run("capture", "claude-code", "--path", str(sessions / "claude-code"), "--quiet")
    assert code == 0 and terminal.getvalue().strip("\x00") == ""


# -- OpenCode (its file storage: session / message / part JSON files) -------------------

OC_SESSION = "ses_6a1f0c2d3e4fA1b2C3d4E5f6G7"
OC_SUBAGENT = "ses_6a1f0c2d3e4fZ9y8X7w6V5u4T3"


def _oc_file(root: Path, session: str) -> Path:
    return next(root.rglob(f"session/*/{session}.json"))


def _oc_message(storage: Path, mid: str, role: str, created: int, *parts: dict, done=True) -> None:
    time = {"created": created, **({"completed": created + 500} if done else {})}
    folder = storage / "message" / OC_SESSION
    (folder / f"{mid}.json").write_text(
        json.dumps({"id": mid, "sessionID": OC_SESSION, "role": role, "time": time})
    )
    (storage / "part" / mid).mkdir(parents=True)
    for i, part in enumerate(parts):
        body = {"id": f"prt_{mid}_{i}", "sessionID": OC_SESSION, "messageID": mid, **part}
        (storage / "part" / mid / f"prt_{mid}_{i}.json").write_text(json.dumps(body))


def test_opencode_session_becomes_openai_messages():
    t = opencode.parse(_oc_file(FIXTURES / "opencode", OC_SESSION))
    assert (t.info.session_id, t.info.cwd, t.info.skip) == (OC_SESSION, "/home/dev/shop", None)
    assert [m["role"] for m in t.messages] == [
        "user",
        "assistant",
        "assistant",
        "user",
        "assistant",
    ]
    assert (
        t.messages[0]["content"] == "The checkout test fails with `database is locked` in app/db.py"
    )
    assert _calls(t.messages) == [
        ("read", {"filePath": "app/db.py"}),
        (
            "edit",
            {"filePath": "app/db.py", "oldString": "timeout=5.0", "newString": "timeout=30.0"},
        ),
    ]
    assert "BEGIN IMMEDIATE" in t.messages[2]["content"]
    assert t.messages[0]["occurred_at"].startswith("2025-11-01T")
    everything = json.dumps(t.messages, ensure_ascii=False)
    for never in (
        MARKER,
        "Called the Read tool",
        "Need to look at",
    ):  # output, synthetic, reasoning
        assert never not in everything
    assert (
        opencode.parse(_oc_file(FIXTURES / "opencode", OC_SUBAGENT)).info.skip
        == "a sub-agent's session"
    )


def test_opencode_capture_adds_only_what_is_new_and_waits_for_an_unfinished_answer(
    run, sessions, store
):
    storage = sessions / "opencode" / "storage"
    where = ("capture", "opencode", "--path", str(storage), "--user-id", "alice")
    code, out, err = run(*where)
    assert (code, out.strip(), err) == (
        0,
        "captured 1 new sessions, 0 updated, 1 unchanged (5 messages)",
        "",
    )
    assert run(*where)[1].strip() == "captured 0 new sessions, 0 updated, 2 unchanged (0 messages)"

    start = 1762000100000
    _oc_message(
        storage,
        "msg_a005",
        "user",
        start,
        {"type": "text", "text": "Which Python version do we use?"},
    )
    _oc_message(
        storage, "msg_a006", "assistant", start + 1000, {"type": "text", "text": "Py"}, done=False
    )
    assert run(*where)[1].strip() == "captured 0 new sessions, 1 updated, 1 unchanged (1 messages)"
    (storage / "message" / OC_SESSION / "msg_a006.json").write_text(
        json.dumps(
            {
                "id": "msg_a006",
                "sessionID": OC_SESSION,
                "role": "assistant",
                "time": {"created": start + 1000, "completed": start + 2000},
            }
        )
    )
    (storage / "part" / "msg_a006" / "prt_msg_a006_0.json").write_text(
        json.dumps(
            {
                "id": "prt_msg_a006_0",
                "type": "text",
                "text": "Python 3.12, pinned in .python-version.",
            }
        )
    )
    assert run(*where)[1].strip() == "captured 0 new sessions, 1 updated, 1 unchanged (1 messages)"

    raw = [p for p in _payloads(store) if p.get("layer") == "raw"]
    contents = [p["content"] for p in raw]
    assert contents.count("Which Python version do we use?") == 1
    assert "Python 3.12, pinned in .python-version." in contents and "Py" not in contents
    assert {p["metadata"]["source"] for p in raw} == {"opencode"}
    assert {(p["workspace"], p["session_id"]) for p in raw} == {("/home/dev/shop", OC_SESSION)}
    assert MARKER not in json.dumps(_payloads(store), ensure_ascii=False)


def test_an_opencode_that_keeps_sessions_in_sqlite_is_named_not_silently_skipped(run, sessions):
    storage = sessions / "opencode" / "storage"
    where = ("capture", "opencode", "--path", str(storage), "--user-id", "alice", "--dry-run")
    assert "SQLite" not in run(*where)[2]
    (storage.parent / "opencode.db").write_bytes(b"SQLite format 3\x00")
    code, out, err = run(*where)
    assert code == 0 and "would capture 1 new sessions" in out  # the JSON sessions still are
    assert "opencode.db: this OpenCode keeps its sessions in SQLite" in err


def test_every_parser_has_the_cursor_checks_capture_calls():
    from memhub.capture import PARSERS

    for parser in PARSERS.values():
        assert all(callable(getattr(parser, name)) for name in ("size", "appended", "parse"))
