"""Public result types of the HMG operations (pydantic, so every door serialises them alike)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Epistemic = Literal["possible", "actual", "necessary"]
Status = Literal["active", "superseded", "negated", "archived"]
Exposure = Literal["visible", "quarantined", "sealed", "tombstoned"]
CorrectAction = Literal["replace", "negate", "confirm_actual", "confirm_necessary", "demote"]
GovernAction = Literal["quarantine", "release", "seal", "tombstone", "derive_lesson"]
Effect = Literal["applied", "no_op"]


class Atom(BaseModel):
    """A memory as every read returns it. Governed content is never included."""

    atom_id: str
    content: str
    layer: str
    epistemic: Epistemic | None = None
    polarity: str | None = None
    status: str
    exposure_state: str
    source: str | None = None
    created_at: str
    updated_at: str | None = None
    version: int = 1
    scope: dict[str, str] = Field(default_factory=dict)
    metadata: dict = Field(default_factory=dict)


class RecalledAtom(BaseModel):
    atom_id: str
    content: str
    score: float = Field(description="0..1, higher is better (reciprocal-rank fusion, normalised)")
    created_at: str
    source: str | None = None
    layer: str
    epistemic: str | None = None


class MemorizeResult(BaseModel):
    atom_id: str
    effect: Effect
    epistemic: Epistemic
    polarity: str
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    duplicate_of: str | None = None


class RecallResult(BaseModel):
    atoms: list[RecalledAtom]


class CorrectResult(BaseModel):
    atom_id: str
    action: CorrectAction
    effect: Effect
    new_atom_id: str | None = None
    status: str
    epistemic: str | None = None


class GovernResult(BaseModel):
    atom_id: str
    action: GovernAction
    effect: Effect
    exposure_state: str
    lesson_atom_id: str | None = None


class HandoffResult(BaseModel):
    atom_id: str


class SessionContext(BaseModel):
    """What a new session should see first: the latest handoff, then the hard constraints."""

    handoff: Atom | None = None
    earlier_handoffs: list[Atom] = Field(default_factory=list)
    constraints: list[Atom] = Field(default_factory=list)


class HistoryStep(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    action: str
    reason: str | None = None
    at: str
    by: str


class Relations(BaseModel):
    supersedes: list[str] = Field(default_factory=list)
    superseded_by: list[str] = Field(default_factory=list)
    related_lessons: list[str] = Field(default_factory=list)
    chain: list[str] = Field(default_factory=list, description="the whole version chain, oldest first")


class HistoryResult(BaseModel):
    atom_id: str
    current: Atom
    relations: Relations
    exposure_history: list[HistoryStep] = Field(default_factory=list)
    epistemic_history: list[HistoryStep] = Field(default_factory=list)
    status_history: list[HistoryStep] = Field(default_factory=list)


class Stats(BaseModel):
    atoms: int
    edges: int
    indexes: dict[str, int]
    snapshot_version: int
