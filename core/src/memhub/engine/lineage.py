"""Where a memory's text lives on: the records it was taken from and those taken from it.

Every derived record cites what it came from in ``evidence``: an extracted fact,
profile item or procedure the raw turns (L0) of its conversation, an L3 derived
item the memories it generalises. Sealing one record leaves its text readable in
the others, so ``govern`` hides its lineage too: the records it cites, and every
record citing, directly or through another one, it or one of those.

Version chains (``supersedes``) and lessons (``lesson_of``) are not lineage: an
older version is a statement of its own, and a lesson is written to outlive the seal.
A lineage never leaves the tenant and user of the record it starts from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from memhub.engine.core import Engine
from memhub.engine.payload import Memory, as_memory
from memhub.store.base import IsEmpty, Match, MatchAny, Where, pages

CITES: Final = "evidence"
# Ids per MatchAny and points per scroll page. ``evidence`` has no payload index: each
# query checks it on every memory of the owner, which a rare governing action can afford.
PAGE = 256


def owner(payload: Memory) -> Where:
    """The tenant and user whose records a lineage may include."""
    user = payload.get("user_id")
    same_user = Match("user_id", user) if user else IsEmpty("user_id")
    return Where(must=(Match("tenant", payload["tenant"]), same_user))


def citing(whose: Where, ids: Sequence[str]) -> Where:
    """Records of ``whose`` that cite at least one of ``ids``."""
    return whose.and_(MatchAny(CITES, tuple(ids)))


def _same_owner(cited: Memory, payload: Memory) -> bool:
    # A tombstone keeps no user: its tenant is all that is left to check.
    user = cited.get("user_id")
    return cited.get("tenant") == payload["tenant"] and user in (None, payload.get("user_id"))


async def lineage(engine: Engine, payload: Memory) -> list[tuple[Memory, str]]:
    """The records ``payload``'s text may live on in, each with how it is related.

    First the records it cites (``"source of <id>"``), then, breadth first, every
    record citing one already found or ``payload`` itself (``"derived from <id>"``,
    the id it cites). Each record appears once; governed ones are included (their
    text is gone, but what cites them still carries it).
    """
    cited = payload.get(CITES) or []
    by_id = {p["id"]: p for p in await engine.get_many(cited) if _same_owner(p, payload)}
    sources = [by_id[i] for i in dict.fromkeys(cited) if i in by_id]
    found = [(p, f"source of {payload['id']}") for p in sources]
    frontier = [payload["id"], *(p["id"] for p in sources)]
    seen = set(frontier)
    whose = owner(payload)
    while frontier:
        step: list[str] = []
        for start in range(0, len(frontier), PAGE):
            chunk = frontier[start : start + PAGE]
            cited_here = set(chunk)
            async for page in pages(engine.store, "memories", citing(whose, chunk), size=PAGE):
                for p in (as_memory(point.payload) for point in page):
                    if p["id"] not in seen:
                        seen.add(p["id"])
                        parent = next(i for i in p[CITES] if i in cited_here)
                        found.append((p, f"derived from {parent}"))
                        step.append(p["id"])
        frontier = step
    return found
