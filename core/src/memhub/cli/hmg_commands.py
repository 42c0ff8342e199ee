"""The HMG commands: memorize, recall, correct, govern, handoff, context, history, stats, purge.

Semantics are the client's (README, "Operations"); this module only maps flags to
calls. Scope overrides (``--repository`` etc.) reach every call through ``inv.scope``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, get_args

from memhub import progress as progress_
from memhub.cli import render
from memhub.errors import UsageError
from memhub.models import CorrectAction, Epistemic, GovernAction
from memhub.scope import SCOPE_KEYS

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation


def register(add: AddCommand) -> None:
    p = add("memorize", _memorize, "store one fact (a duplicate is a no_op)", scope=SCOPE_KEYS)
    p.add_argument(
        "content", metavar="CONTENT", help="the fact, in natural language; - reads stdin"
    )
    p.add_argument("--epistemic", choices=get_args(Epistemic), help="default: inferred")
    p.add_argument("--polarity", choices=("positive", "negative"), help="default: inferred")

    p = add("recall", _recall, "find memories (a noun phrase works best)", scope=SCOPE_KEYS)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="at most N results (1-200)")
    p.add_argument("--as-of", metavar="DATE", help="what held at this ISO 8601 date or date-time")

    p = add("correct", _correct, "change what is believed about a memory", scope=SCOPE_KEYS)
    p.add_argument("atom_id", metavar="ATOM_ID")
    p.add_argument(
        "action",
        metavar="ACTION",
        choices=get_args(CorrectAction),
        help=f"one of: {', '.join(get_args(CorrectAction))}",
    )
    p.add_argument("--reason", required=True, help="why; the audit trail shows it")
    p.add_argument("--new-content", help="the new version (replace only)")

    p = add("govern", _govern, "change whether a memory may exist", scope=SCOPE_KEYS)
    p.add_argument("atom_id", metavar="ATOM_ID")
    p.add_argument(
        "action",
        metavar="ACTION",
        choices=get_args(GovernAction),
        help=f"one of: {', '.join(get_args(GovernAction))}",
    )
    p.add_argument("--reason", required=True, help="why; the audit trail shows it")
    p.add_argument("--lesson-content", help="the lesson to keep (derive_lesson only)")

    p = add("handoff", _handoff, "leave a summary for the next session", scope=SCOPE_KEYS)
    p.add_argument(
        "summary", metavar="SUMMARY", help="what was done, why, risks, next steps; - reads stdin"
    )

    add(
        "context",
        _context,
        "session context: the latest handoff, then the constraints",
        scope=SCOPE_KEYS,
    )

    p = add("history", _history, "the audit trail of one memory", scope=SCOPE_KEYS)
    p.add_argument("atom_id", metavar="ATOM_ID")

    add("stats", _stats, "what the store holds", scope=SCOPE_KEYS)

    p = add("purge", _purge, "rewrite the store so sealed/tombstoned content is gone from disk")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def _text(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


async def _memorize(inv: Invocation) -> None:
    a = inv.args
    client = await inv.client()
    result = await client.memorize(
        _text(a.content), epistemic=a.epistemic, polarity=a.polarity, metadata=None, **inv.scope
    )
    inv.emit(result, render.memorize)


async def _recall(inv: Invocation) -> None:
    client = await inv.client()
    result = await client.recall(
        inv.args.query, limit=inv.args.limit, as_of=inv.args.as_of, **inv.scope
    )
    inv.emit(result, render.recall)


async def _correct(inv: Invocation) -> None:
    a = inv.args
    if a.action == "replace" and a.new_content is None:
        raise UsageError("correct replace needs --new-content (the new version's text)")
    client = await inv.client()
    result = await client.correct(a.atom_id, a.action, a.reason, a.new_content, **inv.scope)
    inv.emit(result, render.correct)


async def _govern(inv: Invocation) -> None:
    a = inv.args
    if a.action == "derive_lesson" and a.lesson_content is None:
        raise UsageError("govern derive_lesson needs --lesson-content (the lesson to keep)")
    client = await inv.client()
    result = await client.govern(a.atom_id, a.action, a.reason, a.lesson_content, **inv.scope)
    inv.emit(result, render.govern)


async def _handoff(inv: Invocation) -> None:
    client = await inv.client()
    inv.emit(await client.handoff(_text(inv.args.summary), **inv.scope), render.handoff)


async def _context(inv: Invocation) -> None:
    client = await inv.client()
    inv.emit(await client.session_context(**inv.scope), render.context)


async def _history(inv: Invocation) -> None:
    client = await inv.client()
    inv.emit(await client.history(inv.args.atom_id, **inv.scope), render.history)


async def _stats(inv: Invocation) -> None:
    client = await inv.client()
    inv.emit(await client.stats(**inv.scope), render.stats)


async def _purge(inv: Invocation) -> int | None:
    # Ask before opening the store: a refusal must leave everything as it was.
    if not inv.args.yes and not inv.confirm("Rewrite the store to erase governed content?"):
        print("memhub: purge cancelled, nothing changed", file=sys.stderr)
        return 1
    client = await inv.client()
    bar = progress_.bar(inv.args.quiet)
    try:
        await client.purge(progress=bar)
    finally:
        bar.close()
    inv.emit({"purged": True}, render.purge)
    return None
