"""Data passed between the write pipeline and its two model roles: the extractor and the judge.

The pipeline hands the extractor cleaned chat messages and gets candidate memories back;
it then hands the judge every candidate of one write, each with the existing memories it
resembles, and gets one verdict per candidate (ADD, NOOP, OVERRIDE, ...).
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

__all__ = [
    "Action",
    "Candidate",
    "Extractor",
    "Judge",
    "JudgeItem",
    "Layer",
    "Message",
    "Neighbour",
    "Verdict",
]

Layer = Literal["fact", "profile"]
Action = Literal["ADD", "NOOP", "OVERRIDE", "SUPPLEMENT", "INVALID", "NEED_CONTEXT", "RAW_ONLY"]


class Message(BaseModel):
    """One OpenAI-style chat message, already cleaned (no system or tool messages)."""

    role: Literal["user", "assistant"]
    content: str
    id: str | None = None
    """The L0 raw record id of this message, when known."""


class Candidate(BaseModel):
    """A statement worth remembering, proposed by an extractor.

    Example:
        >>> Candidate(text="我住在上海", layer="profile", source_ids=["01HK..."]).layer
        'profile'
    """

    text: str
    """A self-contained statement in the user's language (third person is fine)."""
    layer: Layer
    """``profile``: a stable attribute, preference or identity of the user (name, city,
    employer, job, favourite X, language, habits). ``fact``: everything else worth keeping
    (decisions, events, project facts, plans)."""
    proactive: bool = False
    """A plan, reminder, deadline or other time-bound item ("下个月要搬去北京")."""
    source_ids: list[str] = Field(default_factory=list)
    """Ids of the messages the candidate came from."""


class Neighbour(BaseModel):
    """An existing current memory similar to a candidate."""

    id: str
    content: str
    score: float
    """Similarity 0..1, higher is more similar."""
    layer: str


class JudgeItem(BaseModel):
    """One candidate and the existing memories at or above the relation threshold, best first."""

    candidate: Candidate
    neighbours: list[Neighbour] = Field(default_factory=list)


class Verdict(BaseModel):
    """What to do with one candidate."""

    action: Action
    targets: list[str] = Field(default_factory=list)
    """Neighbour ids the action refers to: OVERRIDE the superseded ones (best first),
    NOOP the duplicate, SUPPLEMENT the related ones."""
    update_type: str | None = None
    """Short label: ``value_change``, ``duplicate``, ``complement``, ``tool_replaced``,
    ``version_change``, ``schedule_change``, ..."""
    reason: str = ""


@runtime_checkable
class Extractor(Protocol):
    """Turns one write's messages into candidate memories."""

    async def extract(self, messages: list[Message]) -> list[Candidate]: ...


@runtime_checkable
class Judge(Protocol):
    """Decides every candidate of one write in a single call: one verdict per item, same order."""

    free: bool
    """Whether a call costs nothing (an offline judge): the write path then shows it
    weaker neighbours too, since its threshold exists to save model calls."""

    async def judge(self, items: list[JudgeItem]) -> list[Verdict]: ...
