"""The commands that move memories: ``export`` and ``import``.

``memhub export > memories.jsonl`` writes JSON Lines to stdout (or ``--output``);
``memhub import memories.jsonl`` reads them back, ``--from mem0 DIR`` reads a mem0
store. Both draw a progress bar on a terminal's stderr (``--quiet``: none).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from memhub import progress as progress_
from memhub._transfer import FORMATS
from memhub.errors import InvalidInputError
from memhub.models import ExportResult, ImportResult

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation


def register(add: AddCommand) -> None:
    p = add(
        "export",
        _export,
        "write every memory version with its audit trail as JSON Lines",
        scope=("tenant", "user_id", "app_id"),
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument(
        "--include-vectors",
        action="store_true",
        help="also the vectors (a store with the same embedder reuses them)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")

    p = add(
        "import",
        _import,
        "add the memories of an export (or of a mem0 store); safe to run again",
        scope=("tenant",),
    )
    p.add_argument(
        "source", metavar="PATH", help="an export file, or with --from mem0 a mem0 store folder"
    )
    p.add_argument(
        "--from",
        dest="from_",
        choices=FORMATS,
        default="memhub",
        help="what PATH is (default: a memhub export)",
    )
    p.add_argument(
        "--strict", action="store_true", help="check every line first; any bad line: import nothing"
    )
    p.add_argument(
        "--include-deleted",
        action="store_true",
        help="mem0: also import deleted memories' text (as archived versions)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar or notes")


async def _export(inv: Invocation) -> None:
    a, s = inv.args, inv.scope
    if a.output is None and sys.stdout.isatty():
        raise InvalidInputError(
            "the export would go to the terminal: redirect it (> memories.jsonl) or pass --output"
        )
    client = await inv.client()
    bar = progress_.bar(a.quiet)
    try:
        result = await client.export(
            a.output or sys.stdout,
            user_id=s.get("user_id"),
            app_id=s.get("app_id"),
            include_vectors=a.include_vectors,
            progress=bar,
        )
    finally:
        bar.close()
    if a.output is None:  # stdout carries the export: the summary goes to stderr
        if not a.quiet:
            print(_exported(result), file=sys.stderr)
    else:
        inv.emit(result, _exported)


def _exported(r: ExportResult) -> str:
    return f"exported {r.exported} memories and {r.events} audit events" + (
        " with vectors" if r.vectors else ""
    )


async def _import(inv: Invocation) -> int | None:
    a = inv.args
    client = await inv.client()
    bar = progress_.bar(a.quiet)
    try:
        result = await client.import_(
            a.source,
            from_=a.from_,
            strict=a.strict,
            include_deleted=a.include_deleted,
            progress=bar,
        )
    finally:
        bar.close()
    inv.emit(result, _imported)
    return 1 if result.invalid else None


def _imported(r: ImportResult) -> str:
    head = (
        f"imported {r.imported}, already there {r.skipped}, invalid {r.invalid}, embedded "
        f"here {r.embedded}"
    )
    return "\n".join([head, *(f"  {e}" for e in r.errors)])
