"""Plain-text views of the result models, and the ``--json`` view (pure functions, no I/O)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from memhub.models import (
    Atom,
    CorrectResult,
    GovernResult,
    HandoffResult,
    HistoryResult,
    HistoryStep,
    MemorizeResult,
    RecallResult,
    SessionContext,
    Stats,
)

NONE = "-"


def to_json(result: BaseModel | dict[str, Any]) -> str:
    """What ``--json`` prints: the model as its JSON shape (aliases, e.g. ``from``), unescaped."""
    data = (
        result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    )
    return json.dumps(data, ensure_ascii=False, indent=2)


def one_line(value: object) -> str:
    """A table cell: ``None`` as ``-``, every run of whitespace (newlines too) as one space."""
    return NONE if value is None else " ".join(str(value).split())


def width(text: str) -> int:
    """Terminal columns ``text`` takes: CJK characters take two, combining marks none."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns aligned under a header row; the last column (usually content) is not padded."""
    cells = [[one_line(c) for c in row] for row in [headers, *rows]]
    widths = [max(width(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        padded = [c + " " * (widths[i] - width(c)) for i, c in enumerate(row[:-1])]
        lines.append("  ".join([*padded, row[-1]]).rstrip())
    return "\n".join(lines)


def date(timestamp: str | None) -> str:
    return timestamp[:10] if timestamp else NONE


# -- one view per command -------------------------------------------------------------


def memorize(r: MemorizeResult) -> str:
    if r.effect == "no_op":
        text = f"no_op  {r.atom_id}  already stored: nothing was added"
        if r.note:
            text += f"\ncorrection candidate: {r.note}"
    else:
        text = f"applied  {r.atom_id}  epistemic={r.epistemic} polarity={r.polarity}"
    if r.redacted:
        text += f"\nredacted before storing: {', '.join(r.redacted)}"
    return text


def recall(r: RecallResult) -> str:
    if not r.atoms:
        return "no memories found"
    # The full id, not a prefix: it is what correct/govern/history take.
    rows = [(f"{a.score:.2f}", a.atom_id, date(a.created_at), a.content) for a in r.atoms]
    return table(("SCORE", "ID", "CREATED", "CONTENT"), rows)


def correct(r: CorrectResult) -> str:
    target = f"{r.atom_id} -> {r.new_atom_id}" if r.new_atom_id else r.atom_id
    return f"{r.effect}  {r.action}  {target}  status={r.status} epistemic={r.epistemic or NONE}"


def govern(r: GovernResult) -> str:
    text = f"{r.effect}  {r.action}  {r.atom_id}  exposure={r.exposure_state}"
    text += f"  lesson={r.lesson_atom_id}" if r.lesson_atom_id else ""
    if r.cascaded:  # full ids: each one's history says why
        n = len(r.cascaded)
        text += (
            f"\n{n} other {'memory' if n == 1 else 'memories'} {r.exposure_state} with it "
            f"(what it came from or what was taken from it): {' '.join(r.cascaded)}"
        )
    return text


def handoff(r: HandoffResult) -> str:
    return f"handoff stored  {r.atom_id}"


def atoms(items: Sequence[Atom]) -> str:
    rows = [(a.atom_id, date(a.created_at), a.epistemic or NONE, a.content) for a in items]
    return table(("ID", "CREATED", "EPISTEMIC", "CONTENT"), rows)


def context(r: SessionContext) -> str:
    if r.handoff is None:
        parts = ["latest handoff: none yet"]
    else:
        parts = [
            f"latest handoff  {r.handoff.atom_id}  {r.handoff.created_at}\n{r.handoff.content}"
        ]
    if r.earlier_handoffs:
        parts.append("earlier handoffs\n" + atoms(r.earlier_handoffs))
    if r.constraints:
        parts.append("constraints (necessary)\n" + atoms(r.constraints))
    else:
        parts.append("constraints: none")
    return "\n\n".join(parts)


def _steps(title: str, steps: Sequence[HistoryStep]) -> str:
    rows = [(f"{s.from_ or NONE} -> {s.to or NONE}", s.action, s.reason, s.by, s.at) for s in steps]
    return f"{title}\n" + table(("CHANGE", "ACTION", "REASON", "BY", "AT"), rows)


def history(r: HistoryResult) -> str:
    a, rel = r.current, r.relations
    parts = [
        table(
            ("FIELD", "VALUE"),
            [
                ("id", a.atom_id),
                ("content", a.content),
                ("state", f"{a.status}, {a.exposure_state}, {a.epistemic or NONE}"),
                ("layer", f"{a.layer} (version {a.version})"),
                ("created", a.created_at),
                ("updated", a.updated_at),
            ],
        ),
        "relations\n"
        + table(
            ("RELATION", "ATOMS"),
            [
                ("supersedes", ", ".join(rel.supersedes) or None),
                ("superseded_by", ", ".join(rel.superseded_by) or None),
                ("related_lessons", ", ".join(rel.related_lessons) or None),
                ("chain", " -> ".join(rel.chain) or None),
            ],
        ),
    ]
    for title, steps in (
        ("status history", r.status_history),
        ("epistemic history", r.epistemic_history),
        ("exposure history", r.exposure_history),
    ):
        if steps:
            parts.append(_steps(title, steps))
    return "\n\n".join(parts)


def stats(r: Stats) -> str:
    rows: list[tuple[str, object]] = [("atoms", r.atoms), ("edges", r.edges)]
    rows += [(f"index {name}", count) for name, count in r.indexes.items()]
    rows.append(("snapshot_version", r.snapshot_version))
    return table(("METRIC", "VALUE"), rows)


def purge(_: dict[str, Any]) -> str:
    return "purged: sealed and tombstoned content is physically gone from the store"
