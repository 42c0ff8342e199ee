"""Public result types of the HMG operations (pydantic, so every door serialises them alike)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Epistemic = Literal["possible", "actual", "necessary"]
Status = Literal["active", "superseded", "negated", "archived"]
Exposure = Literal["visible", "quarantined", "sealed", "tombstoned"]
CorrectAction = Literal["replace", "negate", "confirm_actual", "confirm_necessary", "demote"]
GovernAction = Literal["quarantine", "release", "seal", "tombstone", "derive_lesson"]
Effect = Literal["applied", "no_op"]


# Valid time (memhub.engine.valid_time), as every read shows it
ValidFrom = Annotated[
    str | None,
    Field(
        description="when it began to hold in the world (ISO 8601): the start of the span its "
        'words name ("last month": the month\'s first day), else when it was said'
    ),
]
ValidTo = Annotated[
    str | None,
    Field(description="when a newer version or a negation ended it; empty while it holds"),
]
ValidPrecision = Annotated[
    str | None,
    Field(description="instant, day, week, month or year: how wide the span named is"),
]


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
    valid_from: ValidFrom = None
    valid_to: ValidTo = None
    valid_precision: ValidPrecision = None
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
    valid_from: str | None = None
    valid_precision: str | None = None


class MemorizeResult(BaseModel):
    atom_id: str
    effect: Effect
    epistemic: Epistemic
    polarity: str
    redacted: list[str] = Field(default_factory=list, description="kinds of secrets removed")
    duplicate_of: str | None = None
    suggested_correction: str | None = Field(
        None,
        description="a no_op restating the memory at another epistemic level (hearsay of a "
        "fact, a confirmation of a guess) is a correction candidate: the correct action to apply",
    )
    note: str | None = Field(None, description="why the result needs a look, in a sentence")


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
    cascaded: list[str] = Field(
        default_factory=list,
        description="other memories given the same exposure: the raw turns it was extracted from "
        "and what was extracted or derived from it or "
        "them (seal, tombstone and derive_lesson only)",
    )


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
    chain: list[str] = Field(
        default_factory=list, description="the whole version chain, oldest first"
    )


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
    scope: dict[str, str] = Field(
        default_factory=dict, description="the scope counted (empty: the whole tenant)"
    )


# -- the MemHub face (add / search) -------------------------------------------------


class Procedure(BaseModel):
    """Reusable engineering experience extracted from a coding session."""

    task: str
    solution: str
    search_keys: list[str] = Field(default_factory=list)
    boundary_envs: list[str] = Field(default_factory=list)
    boundary_scope: Literal["strict", "project", "user", "global"] = "project"
    files: list[str] = Field(default_factory=list)
    workspace_id: str | None = None
    branch: str | None = None


class Decision(BaseModel):
    """What the write judge decided for one extracted candidate."""

    action: Literal["ADD", "NOOP", "OVERRIDE", "SUPPLEMENT", "INVALID", "NEED_CONTEXT", "RAW_ONLY"]
    update_type: str | None = None
    targets: list[str] = Field(default_factory=list)
    candidate: str
    memory_id: str | None = Field(None, description="the memory written for this candidate, if any")
    suggested_correction: str | None = Field(
        None,
        description="a NOOP restating a memory at another epistemic level (hearsay of a fact, "
        "a confirmation of a guess) is a correction candidate: the correct action to apply",
    )
    note: str | None = Field(None, description="why the decision needs a look, in a sentence")
    kept: list[str] = Field(
        default_factory=list,
        description="an OVERRIDE of a memory that said more than the new statement changes "
        '("we use Vue and Go" by "we switched from Vue to React"): the memories the rest '
        "of it was kept as",
    )


class WriteResult(BaseModel):
    memory_id: str = Field(description="the L0 raw record of this write")
    extracted_count: int
    commit_passed: bool
    decisions: list[Decision] = Field(default_factory=list)
    scene: Literal["chat", "coding"] = "chat"
    procedure_ids: list[str] = Field(default_factory=list)
    raw_ids: list[str] = Field(default_factory=list, description="one L0 record per message")
    memory_ids: list[str] = Field(
        default_factory=list,
        description="the memories this write created (facts, profile items, procedures; with "
        "what an OVERRIDE kept of the memory it superseded), in decision order: the ids that "
        "get() and history() take, where memory_id is the raw record",
    )


class MemoryItem(BaseModel):
    id: str
    content: str
    score: float | None = None
    layer: str
    created_at: str
    occurred_at: str | None = None
    updated_at: str | None = None
    valid_from: ValidFrom = None
    valid_to: ValidTo = None
    valid_precision: ValidPrecision = None
    user_id: str | None = None
    app_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    status: str = "active"
    evolution_chain: list[str] = Field(
        default_factory=list, description="ids of the versions it replaced, newest first"
    )
    procedure: Procedure | None = None
    metadata: dict = Field(default_factory=dict)


class MemoryGroups(BaseModel):
    profile: list[MemoryItem] = Field(default_factory=list)
    proactive: list[MemoryItem] = Field(default_factory=list)
    normal: list[MemoryItem] = Field(default_factory=list)
    procedures: list[MemoryItem] | None = None
    derived: list[MemoryItem] | None = None

    def to_dict(self) -> dict[str, list[dict]]:
        """Groups as plain dicts (the shape ``format_memories`` takes); absent groups
        are left out.
        """
        return {k: [m.model_dump() for m in v] for k, v in self if v is not None}

    def all(self) -> list[MemoryItem]:
        return [m for _, v in self if v for m in v]


class SearchResult(BaseModel):
    memories: MemoryGroups


class ConversationTurn(BaseModel):
    id: str = Field(description="the L0 record id")
    message_id: str | None = None
    role: str
    content: str
    score: float | None = Field(None, description="relevance, for a search; none in a listing")
    session_id: str | None = None
    created_at: str
    occurred_at: str | None = None


class ConversationResult(BaseModel):
    turns: list[ConversationTurn]


class DigestResult(BaseModel):
    processed: int = Field(description="pending scopes processed")
    derived_ids: list[str] = Field(default_factory=list)


class ForgetResult(BaseModel):
    """What ``forget_user`` erased: the text is gone from every read at once, and from
    the files on disk after ``purge``."""

    user_id: str
    tombstoned: int = Field(
        description="the user's records erased by this call (memories tombstoned, adapters' store "
        "items deleted); 0 when nothing was left"
    )
    threads: int = Field(
        default=0,
        description="the user's saved conversation threads deleted by this call (every record "
        "an adapter keeps of each: saved states, pending writes); 0 when none was left",
    )


# -- moving memories (export / import) ----------------------------------------------


class ExportResult(BaseModel):
    """What ``export`` wrote: one line per memory version after the header line."""

    exported: int = Field(
        description="memory lines written (every version, any status and exposure)"
    )
    events: int = Field(description="audit events written with them")
    vectors: bool = Field(description="whether the lines carry the vectors")


class ImportResult(BaseModel):
    """What ``import_`` did; running the same import again reports everything as ``skipped``."""

    imported: int = Field(description="memories added")
    skipped: int = Field(description="memories already in the store (same id): left as they are")
    invalid: int = Field(
        0, description="lines that were not memory records: reported and not applied"
    )
    embedded: int = Field(
        0, description="memories whose vectors were made here (no reusable vectors in the file)"
    )
    errors: list[str] = Field(
        default_factory=list, description="the first invalid lines, with their line numbers"
    )
    notes: list[str] = Field(default_factory=list)
