"""Every scope option the CLI accepts takes effect: it reaches the SDK call, or it is refused.

A command declares the scope keys it acts on (``add(..., scope=...)``); the others are
not offered after its name and are refused before it (``memhub --app-id x get ID``).
Each command below runs against a recording client (the real ``Invocation.client``
builds it from the real settings), so the test sees what the SDK would have been asked.
"""

from __future__ import annotations

from typing import Any

import pytest

from memhub.cli import app
from memhub.scope import SCOPE_KEYS

ID = "00000000-0000-4000-8000-000000000000"
VALUE = "flagged"  # a valid value for every scope key

# The smallest valid command line of each command (a user id where the command needs one).
COMMANDS: dict[str, list[str]] = {
    "memorize": ["memorize", "we use PostgreSQL 16"],
    "recall": ["recall", "database"],
    "correct": ["correct", ID, "negate", "--reason", "wrong"],
    "govern": ["govern", ID, "quarantine", "--reason", "unsure"],
    "handoff": ["handoff", "done for today"],
    "context": ["context"],
    "history": ["history", ID],
    "stats": ["stats"],
    "purge": ["purge", "--yes"],
    "add": ["add", "--content", "I live in Lisbon", "--user-id", "u"],
    "search": ["search", "city", "--user-id", "u"],
    "search-conversation": ["search-conversation", "city", "--user-id", "u"],
    "get": ["get", ID],
    "list": ["list", "--user-id", "u"],
    "update": ["update", ID, "I live in Porto"],
    "delete": ["delete", ID],
    "forget-user": ["forget-user", "--user-id", "u", "--yes"],
    "digest": ["digest"],
    "export": ["export", "--output", "-"],
    "import": ["import", "memories.jsonl"],
}
# Commands that start a server, back a store up, read an agent's own folders or print
# settings: their options are tested where they are (test_server_cli.py,
# test_server_backup.py, test_capture_cli.py, below).
ELSEWHERE = {"serve-api", "serve", "ui", "keys", "backup", "restore", "capture", "config"}


class _Reached(Exception):
    """Raised by the recording client once an operation is called: the test has its call."""


class _RecordingClient:
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __init__(self, *, settings: Any) -> None:
        self.calls.append(("client", (), {"tenant": settings.tenant}))

    async def open(self) -> _RecordingClient:
        return self

    async def aclose(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            raise _Reached

        return call


@pytest.fixture
def run(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(app, "MemoryClient", _RecordingClient)
    monkeypatch.chdir(tmp_path)

    def invoke(*argv: str) -> tuple[int, list[Any], str]:
        _RecordingClient.calls = []
        try:
            code = app.main(["--storage-dir", str(tmp_path / "store"), *argv])
        except _Reached:
            code = 0
        return code, _RecordingClient.calls, capsys.readouterr().err

    return invoke


def _flag(key: str) -> str:
    return f"--{key.replace('_', '-')}"


def _reaches(calls: list[Any], key: str) -> bool:
    """Whether ``VALUE`` given for ``key`` reached an SDK call (under its name or as app_ids)."""
    for _, args, kwargs in calls:
        values = [*args, *kwargs.values()]
        if VALUE in values or [VALUE] in values:
            return True
    return False


def test_every_command_is_covered():
    parser = app.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) == set(COMMANDS) | ELSEWHERE


@pytest.mark.parametrize("key", SCOPE_KEYS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_scope_option_takes_effect_or_is_refused(run, command, key):
    argv = [a for a in COMMANDS[command]]
    if key == "user_id" and "--user-id" in argv:
        argv[argv.index("--user-id") + 1] = VALUE
    else:
        argv += [_flag(key), VALUE]
    code, calls, err = run(*argv)
    operations = [name for name, _, _ in calls if name != "client"]
    if code == app.EXIT_USAGE:
        assert not operations, f"{command}: refused {key} yet called {operations}"
        assert _flag(key) in err, err
    else:
        assert code == 0, err
        assert operations, f"{command} reached no operation"
        assert _reaches(calls, key), f"{command} accepted {_flag(key)} and ignored it: {calls}"


@pytest.mark.parametrize("command", ["get", "purge", "digest"])
def test_a_scope_option_before_the_command_is_refused_when_the_command_ignores_it(run, command):
    code, calls, err = run("--app-id", "travel", *COMMANDS[command])
    assert code == app.EXIT_USAGE
    assert f"'{command}' does not take --app-id" in err
    assert calls == []


def test_a_scope_option_before_the_command_applies_when_the_command_takes_it(run):
    code, calls, _ = run("--tenant", "acme", "--app-id", "travel", *COMMANDS["list"])
    assert code == 0
    assert calls[0] == ("client", (), {"tenant": "acme"})
    assert calls[1][2]["app_ids"] == ["travel"]


def test_config_shows_the_tenant_given(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert app.main(["--json", "config", "--tenant", "acme"]) == 0
    assert '"tenant": "acme"' in capsys.readouterr().out
