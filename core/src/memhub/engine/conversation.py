"""Raw conversation turns: how a question about a person ranks them.

A question that names a participant ("What has Melanie painted?") is about what that
person said, not about every turn that addresses them by name. Figures on a long
multi-session benchmark (turn-level evidence recall@10, e5 + BM25, RRF k=2;
bench/README.md): dated turns alone 0.684, with the speaker preference below 0.690
(and 0.763 with the turn context of bench/README.md, not shipped).
"""

from __future__ import annotations

import re

from memhub._cjk import HAN_CHAR
from memhub.engine.payload import Memory

_WORD = re.compile(r"[^\W_]+")


def named(query: str, speakers: set[str]) -> set[str]:
    """The speakers the query names, as whole words (Chinese names: anywhere in the query).

    When it names every speaker in sight ("What do Alice and Bob share?") it prefers
    none of them, and the empty set is returned.
    """
    words = set(_WORD.findall(query.lower()))
    lowered = query.lower()
    hit = {
        s
        for s in speakers
        if s and (s.lower() in lowered if HAN_CHAR.search(s) else s.lower() in words)
    }
    return hit if hit != speakers else set()


def prefer_speakers(
    query: str, hits: list[tuple[Memory, float]], rrf_k: int
) -> list[tuple[Memory, float]]:
    """Re-rank turns (best first) so that those spoken by a participant the query names climb.

    The turns of the named speakers, in their order, are a second ranking fused with the
    first by RRF (``rrf_k``): a named speaker's turn gains, and another turn that matches
    the question well keeps its place ahead of a named speaker's weak one. Turns without
    a recorded speaker (messages without ``name``) are never preferred. Re-ranked scores
    are that fusion normalised to 0..1 (1 = first in both); unchanged when nobody is named.
    """
    who = named(query, {p["speaker"] for p, _ in hits if p.get("speaker")})
    if not who:
        return hits
    score = {p["id"]: 1 / (i + rrf_k) for i, (p, _) in enumerate(hits)}
    for i, (p, _) in enumerate(h for h in hits if h[0].get("speaker") in who):
        score[p["id"]] += 1 / (i + rrf_k)
    ranked = sorted((p for p, _ in hits), key=lambda p: (-round(score[p["id"]], 9), p["id"]))
    return [(p, round(score[p["id"]] * rrf_k / 2, 4)) for p in ranked]
