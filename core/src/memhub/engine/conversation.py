"""Raw conversation turns: what each one is indexed as, and how a question about a person ranks them.

A turn in a long chat rarely stands alone: "Yep, the third one!" answers the question
before it, and "Wow, Melanie, that's amazing!" is about what the other speaker just
said. The turn is stored as it was said; only its index carries the context. And a
question that names a participant ("What has Melanie painted?") is about what that
person said, not about every turn that addresses them by name.

Figures on a long multi-session benchmark (turn-level evidence recall@10, e5 + BM25,
RRF k=2; bench/README.md): dated turns alone 0.684; with the previous turn in the BM25
text and 0.3 of its vector in the dense one 0.743; with the speaker preference below
0.763.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

# How much of the previous turn's vector a turn's dense vector carries. 0.3 was best of
# 0 / 0.3 / 0.5 / 1.0: more and a turn ranks for what the other speaker said.
CONTEXT_WEIGHT = 0.3

_WORD = re.compile(r"[^\W_]+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def with_previous(texts: Sequence[str]) -> list[str]:
    """Each turn's keyword text: the turn before it in the same conversation, then the turn.

    Example:
        >>> with_previous(["What editor do you use?", "VS Code, always."])
        ['What editor do you use?', 'What editor do you use?\\nVS Code, always.']
    """
    return [f"{texts[i - 1]}\n{text}" if i else text for i, text in enumerate(texts)]


def in_context(
    vectors: Sequence[Sequence[float]], weight: float = CONTEXT_WEIGHT
) -> list[list[float]]:
    """Each turn's vector moved towards the previous turn's: ``normalize(v[i] + weight * v[i-1])``.

    Mean-pooled embeddings of two texts add up roughly as the embedding of both, so the
    context costs no second pass of the model over the previous turn.
    """
    out = []
    for i, vector in enumerate(vectors):
        mixed = (
            [a + weight * b for a, b in zip(vector, vectors[i - 1], strict=True)]
            if i
            else list(vector)
        )
        norm = math.sqrt(sum(x * x for x in mixed)) or 1.0
        out.append([x / norm for x in mixed])
    return out


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
        if s and (s.lower() in lowered if _HAN.search(s) else s.lower() in words)
    }
    return hit if hit != speakers else set()


def prefer_speakers(
    query: str, hits: list[tuple[dict, float]], rrf_k: int
) -> list[tuple[dict, float]]:
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
