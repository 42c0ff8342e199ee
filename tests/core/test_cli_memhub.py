"""The MemHub commands of the CLI: add, search, search-conversation, get, list, update, delete,
forget-user,
digest, config."""

from __future__ import annotations

import io
import json
import sys

import pytest

from memhub.cli import main
from memhub.testing.offline import use_hash_embedder


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    use_hash_embedder(monkeypatch)
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "store")

    def invoke(*argv: str) -> tuple[int, str, str]:
        code = main(["--storage-dir", store, *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def test_add_then_search_and_list(run):
    code, out, _ = run("--json", "add", "--content", "我最爱的编程语言是 Java", "--user-id", "u1")
    assert code == 0
    written = json.loads(out)
    memory = written["decisions"][0]["memory_id"]
    code, out, _ = run("--json", "search", "编程语言", "--user-id", "u1")
    assert [m["id"] for m in json.loads(out)["memories"]["profile"]] == [memory]
    code, out, _ = run("search", "编程语言", "--user-id", "u1")
    assert "[profile]" in out and "Java" in out
    code, out, _ = run("--json", "list", "--user-id", "u1")
    assert [m["content"] for m in json.loads(out)["memories"]] == ["我最爱的编程语言是 Java"]
    code, out, _ = run("--json", "search", "编程语言", "--user-id", "u2")
    assert json.loads(out)["memories"]["profile"] == []


def test_add_says_what_an_override_kept_and_what_needs_a_look(run):
    run("add", "--content", "我们项目用 Vue 3，后端是 Go", "--user-id", "u1")
    code, out, _ = run("add", "--content", "我们前端已经从 Vue 3 换成 React 了", "--user-id", "u1")
    assert code == 0 and "OVERRIDE" in out
    [kept_line] = [line for line in out.splitlines() if line.startswith("kept ")]
    kept = kept_line.split()[1].rstrip(":")
    code, out, _ = run("--json", "get", kept, "--user-id", "u1")
    assert json.loads(out)["content"] == "我们项目后端是 Go"
    run("add", "--content", "API 网关用 Kong", "--user-id", "u1")
    code, out, _ = run("add", "--content", "听说 API 网关用 Kong", "--user-id", "u1")
    assert "NOOP" in out and "note: " in out and "demote" in out


def test_search_and_list_narrow_to_a_session_only_when_asked(run):
    run("add", "--content", "我养了一只橘猫", "--user-id", "u1", "--session-id", "a")
    run("add", "--content", "我的猫叫团子", "--user-id", "u1", "--session-id", "b")

    def sessions(*argv: str) -> list[str]:
        code, out, _ = run("--json", *argv, "--user-id", "u1")
        found = json.loads(out)["memories"]
        items = found if isinstance(found, list) else [m for g in found.values() if g for m in g]
        return sorted(m["session_id"] for m in items)

    assert sessions("search", "猫") == ["a", "b"]
    assert sessions("search", "猫", "--session-id", "b") == ["b"]
    assert sessions("list") == ["a", "b"]
    assert sessions("list", "--session-id", "a") == ["a"]


def test_messages_file_update_get_delete(run, tmp_path):
    messages = [
        {"role": "system", "content": "be nice"},
        {"role": "user", "content": "我住在上海"},
        {"role": "assistant", "content": "好的"},
    ]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(messages, ensure_ascii=False))
    code, out, _ = run("--json", "add", "--messages-file", str(path), "--user-id", "u1")
    assert code == 0 and len(json.loads(out)["raw_ids"]) == 2
    memory = json.loads(out)["decisions"][0]["memory_id"]
    code, out, _ = run("--json", "update", memory, "我住在杭州", "--user-id", "u1")
    new = json.loads(out)["memory_id"]
    code, out, _ = run("--json", "get", new, "--user-id", "u1")
    assert json.loads(out)["evolution_chain"] == [memory]
    code, out, _ = run("--json", "search-conversation", "上海", "--user-id", "u1")
    assert json.loads(out)["turns"][0]["content"] == "我住在上海"
    assert run("delete", new, "--user-id", "u1")[0] == 0
    code, out, _ = run("--json", "list", "--user-id", "u1")
    assert json.loads(out)["memories"] == []


def test_add_without_user_or_with_bad_file_is_a_usage_error(run, tmp_path):
    code, _, err = run("add", "--content", "x")
    assert code == 2 and err.count("\n") == 1 and "--user-id" in err
    code, _, err = run("add", "--messages-file", str(tmp_path / "missing.json"), "--user-id", "u")
    assert code == 2 and "cannot read messages" in err


def test_digest_needs_dual_mode(run):
    for text in ["我每天早上喝咖啡", "下午也会喝一杯咖啡提神", "周末去咖啡馆写代码"]:
        run("add", "--content", text, "--user-id", "u1")
    assert "processed 0" in run("digest")[1]  # system1: nothing is pending


def test_config_masks_keys_and_names_sources(run, monkeypatch):
    monkeypatch.setenv("MEMHUB_LLM_API_KEY", "sk-live-abcdefgh12345678")
    monkeypatch.setenv("MEMHUB_MODE", "dual")
    code, out, _ = run("--json", "config")
    shown = json.loads(out)
    assert shown["settings"]["llm_api_key"] == "****5678"
    assert "abcdefgh" not in out
    assert shown["sources"]["mode"] == "env" and shown["settings"]["mode"] == "dual"
    assert shown["sources"]["reconcile_relation_threshold"] == "default"


def test_govern_says_what_else_was_sealed(run):
    code, out, _ = run(
        "--json",
        "add",
        "--content",
        "保险柜暗号是 kiwi-7741。我把 kiwi-7741 写在了书房的便签上。",
        "--user-id",
        "u1",
    )
    written = json.loads(out)
    extracted = [d["memory_id"] for d in written["decisions"]]
    code, out, _ = run("govern", written["raw_ids"][0], "seal", "--reason", "含保险柜暗号")
    assert code == 0
    assert "2 other memories sealed with it" in out and " ".join(extracted) in out
    code, out, _ = run("--json", "list", "--user-id", "u1")
    assert json.loads(out)["memories"] == []


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _contents(run, user: str) -> list[str]:
    listed = json.loads(run("--json", "list", "--user-id", user)[1])
    return [m["content"] for m in listed["memories"]]


def test_forget_user_with_yes_erases_one_user_and_points_to_purge(run):
    run("add", "--content", "我住在上海", "--user-id", "u1")
    run("add", "--content", "我住在北京", "--user-id", "u2")
    code, out, _ = run("forget-user", "--user-id", "u1", "--yes")
    assert code == 0
    assert out.startswith("tombstoned 2 record(s) of user u1") and "memhub purge" in out
    assert _contents(run, "u1") == []
    assert _contents(run, "u2") == ["我住在北京"]
    code, out, _ = run("--json", "forget-user", "--user-id", "u1", "--yes")
    assert json.loads(out) == {"user_id": "u1", "tombstoned": 0, "threads": 0}


def test_forget_user_asks_first_and_a_no_changes_nothing(run, monkeypatch):
    run("add", "--content", "我住在上海", "--user-id", "u1")
    monkeypatch.setattr(sys, "stdin", Tty("n\n"))
    code, out, err = run("forget-user", "--user-id", "u1", "--app-id", "travel")
    assert (code, out) == (1, "")
    assert "Erase every memory of user 'u1' in app 'travel'? [y/N]" in err
    assert "nothing changed" in err
    assert _contents(run, "u1") == ["我住在上海"]
    monkeypatch.setattr(sys, "stdin", Tty("y\n"))
    code, out, _ = run("forget-user", "--user-id", "u1")
    assert code == 0 and out.startswith("tombstoned 2")
    assert _contents(run, "u1") == []


def test_forget_user_needs_a_user_and_a_terminal_or_yes(run):
    run("add", "--content", "我住在上海", "--user-id", "u1")
    code, _, err = run("forget-user", "--yes")
    assert code == 2 and "--user-id" in err
    code, _, err = run("forget-user", "--user-id", "u1")  # stdin is not a terminal here
    assert code == 2 and "--yes" in err
    assert _contents(run, "u1") == ["我住在上海"]


def _listed(out: str, key: str = "memories") -> list[str]:
    return sorted(m["content"] for m in json.loads(out)[key])


def test_list_takes_app_id_and_agent_id(run):
    run("add", "--content", "我住在上海", "--user-id", "u1", "--app-id", "travel")
    run("add", "--content", "我喜欢喝拿铁", "--user-id", "u1", "--app-id", "coffee")
    run(
        "add",
        "--content",
        "我养了一只猫",
        "--user-id",
        "u1",
        "--app-id",
        "coffee",
        "--agent-id",
        "barista",
    )
    code, out, _ = run("--json", "list", "--user-id", "u1", "--app-id", "travel")
    assert code == 0 and _listed(out) == ["我住在上海"]
    code, out, _ = run(
        "--json", "list", "--user-id", "u1", "--app-id", "coffee", "--agent-id", "barista"
    )
    assert code == 0 and _listed(out) == ["我养了一只猫"]
    code, out, _ = run("--json", "list", "--user-id", "u1", "--app-id", "*")
    assert _listed(out) == sorted(["我住在上海", "我喜欢喝拿铁", "我养了一只猫"])


def test_search_conversation_takes_app_id(run):
    run("add", "--content", "我住在上海", "--user-id", "u1", "--app-id", "travel")
    run("add", "--content", "我住在上海浦东", "--user-id", "u1", "--app-id", "coffee")
    code, out, _ = run(
        "--json", "search-conversation", "上海", "--user-id", "u1", "--app-id", "travel"
    )
    assert code == 0 and _listed(out, "turns") == ["我住在上海"]


def test_add_at_a_time_then_read_as_of_a_date(run):
    run("add", "--content", "I live in Toronto", "--user-id", "u1", "--occurred-at", "2026-01-10")
    code, out, _ = run(
        "add",
        "--content",
        "I moved to Montreal last month",
        "--user-id",
        "u1",
        "--occurred-at",
        "2026-09-15",
    )
    assert code == 0 and "OVERRIDE" in out
    code, out, _ = run("--json", "list", "--user-id", "u1", "--as-of", "2026-07-15")
    assert [m["content"] for m in json.loads(out)["memories"]] == ["I live in Toronto"]
    code, out, _ = run("list", "--user-id", "u1")
    assert "valid from" in out and "2026-08" in out  # "last month", said in September
    code, out, _ = run(
        "--json", "search", "where do I live", "--user-id", "u1", "--as-of", "2026-07-15"
    )
    assert [m["content"] for g in json.loads(out)["memories"].values() for m in g or []] == [
        "I live in Toronto"
    ]
    code, _, err = run("list", "--user-id", "u1", "--as-of", "someday")
    assert code != 0 and "ISO 8601" in err
