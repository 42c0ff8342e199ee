"""The MemHub commands: add, search, get, list, update, delete, search-conversation, forget-user,
digest, config.

``--user-id`` is required where the SDK requires it; each command offers the scope options of
its SDK call (``_READ``, ``_WRITE``, ``_BY_ID``) and refuses the others.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.cli import render
from memhub.engine.valid_time import shown_date
from memhub.errors import InvalidInputError
from memhub.models import ConversationResult, ForgetResult, MemoryItem, SearchResult, WriteResult

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation


# The scope options each kind of command acts on (the SDK operation's parameters; the tenant
# is the client's).
_READ = ("tenant", "user_id", "app_id", "agent_id", "session_id")
_WRITE = (*_READ, "branch")
_BY_ID = ("tenant", "user_id")


_AS_OF = "read as of this ISO 8601 date or date-time: what held then, as it was then"


def register(add: AddCommand) -> None:
    p = add(
        "add",
        _add,
        "write a statement or a conversation (facts and profile are extracted)",
        scope=_WRITE,
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--content", help="one statement; - reads stdin")
    source.add_argument(
        "--messages-file", metavar="FILE", help="a JSON list of {role, content} messages"
    )
    p.add_argument("--workspace-id", help="version boundary for procedures")
    p.add_argument(
        "--occurred-at",
        metavar="TIME",
        help="when it was said (ISO 8601; default: now): 'last month' is read against it",
    )
    p.add_argument("--metadata", metavar="JSON", help="a JSON object stored with the memories")

    p = add("search", _search, "grouped search over a user's current memories", scope=_READ)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--procedure-limit", type=int, default=0, help="also return up to N procedures")
    p.add_argument(
        "--derived-limit", type=int, default=None, help="also return up to N derived (L3) items"
    )
    p.add_argument("--as-of", metavar="DATE", help=_AS_OF)

    p = add(
        "search-conversation",
        _search_conversation,
        "search the raw conversation turns",
        scope=_READ,
    )
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--as-of", metavar="DATE", help=_AS_OF)

    p = add("get", _get, "show one memory", scope=_BY_ID)
    p.add_argument("memory_id", metavar="MEMORY_ID")
    p.add_argument("--as-of", metavar="DATE", help=_AS_OF)

    p = add("list", _list, "a user's memories, newest first", scope=_READ)
    p.add_argument(
        "--include-history", action="store_true", help="also replaced and deleted versions"
    )
    p.add_argument("--as-of", metavar="DATE", help=_AS_OF)

    p = add("update", _update, "write a new version of a memory", scope=_BY_ID)
    p.add_argument("memory_id", metavar="MEMORY_ID")
    p.add_argument("content", metavar="CONTENT")

    p = add("delete", _delete, "archive a memory (govern erases content)", scope=_BY_ID)
    p.add_argument("memory_id", metavar="MEMORY_ID")

    p = add(
        "forget-user",
        _forget_user,
        "erase every memory of one user (--user-id; --app-id: only that app)",
        scope=("tenant", "user_id", "app_id"),
    )
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")

    p = add(
        "digest",
        _digest,
        "dual mode: derive L3 patterns for the scopes written since the last digest",
        scope=("tenant",),
    )
    p.add_argument(
        "--mode", choices=("system1", "dual"), help="override the configured mode for this run"
    )

    add(
        "config",
        _config,
        "show the effective settings and where each comes from (keys masked)",
        scope=("tenant",),
    )


def _user(inv: Invocation) -> str:
    user = inv.scope.get("user_id")
    if not user:
        raise InvalidInputError("--user-id is required for this command")
    return user


def _text(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


async def _add(inv: Invocation) -> None:
    a = inv.args
    messages = None
    if a.messages_file:
        try:
            messages = json.loads(Path(a.messages_file).read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise InvalidInputError(f"cannot read messages from {a.messages_file}: {err}") from err
    metadata = _json_object(a.metadata) if a.metadata else None
    s = inv.scope
    client = await inv.client()
    result = await client.add(
        _text(a.content) if a.content else None,
        messages,
        user_id=_user(inv),
        app_id=s.get("app_id"),
        agent_id=s.get("agent_id"),
        session_id=s.get("session_id"),
        workspace_id=a.workspace_id,
        branch=s.get("branch"),
        metadata=metadata,
        occurred_at=a.occurred_at,
    )
    inv.emit(result, _write)


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidInputError(f"--metadata is not JSON: {err}") from err
    if not isinstance(value, dict):
        raise InvalidInputError("--metadata must be a JSON object")
    return value


def _write(r: WriteResult) -> str:
    head = (
        f"memory_id {r.memory_id}  extracted {r.extracted_count}  "
        f"commit_passed {r.commit_passed}  scene {r.scene}"
    )
    rows = [(d.action, d.update_type or "", d.memory_id or "", d.candidate) for d in r.decisions]
    notes: list[str] = []
    for d in r.decisions:
        notes += [
            f"kept {k}: what {d.memory_id} left standing of the memory it superseded"
            for k in d.kept
        ]
        notes += [f"note: {d.note}"] if d.note else []
    return (
        head
        + ("\n" + render.table(("action", "type", "memory", "candidate"), rows) if rows else "")
        + "".join("\n" + line for line in notes)
    )


def _items(items: list[MemoryItem]) -> str:
    rows = [
        (
            f"{m.score:.2f}" if m.score is not None else "",
            m.id,
            m.layer,
            shown_date(m.valid_from or m.created_at, m.valid_precision),
            render.one_line(m.content),
        )
        for m in items
    ]
    head = ("score", "id", "layer", "valid from", "content")
    return render.table(head, rows) if rows else "(none)"


def _groups(r: SearchResult) -> str:
    parts = [f"[{name}]\n{_items(items)}" for name, items in r.memories if items is not None]
    return "\n\n".join(parts)


async def _search(inv: Invocation) -> None:
    a, s = inv.args, inv.scope
    client = await inv.client()
    result = await client.search(
        a.query,
        user_id=_user(inv),
        app_ids=[s["app_id"]] if "app_id" in s else None,
        agent_id=s.get("agent_id"),
        session_id=s.get("session_id"),
        limit=a.limit,
        procedure_limit=a.procedure_limit,
        derived_context_limit=a.derived_limit,
        as_of=a.as_of,
    )
    inv.emit(result, _groups)


def _turns(r: ConversationResult) -> str:
    rows = [
        (f"{t.score:.2f}", t.id, t.role, t.session_id or "", render.one_line(t.content))
        for t in r.turns
    ]
    return render.table(("score", "id", "role", "session", "content"), rows) if rows else "(none)"


def _apps(scope: dict[str, str]) -> list[str] | None:
    """``--app-id`` as the ``app_ids`` a read takes (``*``: every app)."""
    return [scope["app_id"]] if "app_id" in scope else None


async def _search_conversation(inv: Invocation) -> None:
    s = inv.scope
    client = await inv.client()
    result = await client.search_conversation(
        inv.args.query,
        user_id=_user(inv),
        app_ids=_apps(s),
        agent_id=s.get("agent_id"),
        session_id=s.get("session_id"),
        limit=inv.args.limit,
        as_of=inv.args.as_of,
    )
    inv.emit(result, _turns)


async def _get(inv: Invocation) -> None:
    client = await inv.client()
    item = await client.get(
        inv.args.memory_id, user_id=inv.scope.get("user_id"), as_of=inv.args.as_of
    )
    inv.emit(
        item,
        lambda m: (
            _items([m]) + (f"\nevolution_chain: {m.evolution_chain}" if m.evolution_chain else "")
        ),
    )


async def _list(inv: Invocation) -> None:
    client = await inv.client()
    s = inv.scope
    items = await client.list(
        user_id=_user(inv),
        app_ids=_apps(s),
        agent_id=s.get("agent_id"),
        session_id=s.get("session_id"),
        include_history=inv.args.include_history,
        as_of=inv.args.as_of,
    )
    inv.emit({"memories": [m.model_dump(mode="json") for m in items]}, lambda _: _items(items))


async def _update(inv: Invocation) -> None:
    client = await inv.client()
    new_id = await client.update(
        inv.args.memory_id, _text(inv.args.content), user_id=inv.scope.get("user_id")
    )
    inv.emit(
        {"memory_id": new_id, "replaces": inv.args.memory_id},
        lambda r: f"new version {r['memory_id']}",
    )


async def _delete(inv: Invocation) -> None:
    client = await inv.client()
    await client.delete(inv.args.memory_id, user_id=inv.scope.get("user_id"))
    inv.emit({"deleted": inv.args.memory_id}, lambda r: f"archived {r['deleted']}")


async def _forget_user(inv: Invocation) -> int | None:
    user, app = _user(inv), inv.scope.get("app_id")
    # Ask before opening the store: a refusal must leave everything as it was.
    whose = f"user {user!r}" + (f" in app {app!r}" if app else " in every app")
    if not inv.args.yes and not inv.confirm(f"Erase every memory of {whose}?"):
        print("memhub: forget-user cancelled, nothing changed", file=sys.stderr)
        return 1
    client = await inv.client()
    inv.emit(await client.forget_user(user, app_id=app), _forgotten)
    return None


def _forgotten(r: ForgetResult) -> str:
    threads = f" and deleted {r.threads} saved conversation thread(s)" if r.threads else ""
    return (
        f"tombstoned {r.tombstoned} record(s){threads} of user {r.user_id}: "
        "their text is gone from every read\n"
        "run 'memhub purge' to remove it from the files on disk as well"
    )


async def _digest(inv: Invocation) -> None:
    client = await inv.client()
    result = await client.digest(mode=inv.args.mode)
    inv.emit(
        result, lambda r: f"processed {r.processed} scope(s), derived {len(r.derived_ids)} item(s)"
    )


async def _config(inv: Invocation) -> None:
    settings = inv.settings()
    shown, sources = settings.masked(), settings.sources()
    rows = [(key, render.one_line(value), sources.get(key, "")) for key, value in shown.items()]
    inv.emit(
        {"settings": shown, "sources": sources},
        lambda _: render.table(("key", "value", "source"), rows),
    )
