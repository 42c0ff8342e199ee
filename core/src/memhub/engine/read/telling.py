"""Which raw turns tell something: among turns that match a question about as well, those win.

A question asked of a long conversation ("What activities does Melanie do?", "Where has
she camped?") is answered by a turn in which someone tells of their own life ("I just
signed up for a pottery class", "We went camping at the beach"), seldom by one that asks
("What do you love most about camping?") or reacts ("Wow, that's awesome!"). Both kinds
share the question's words, and a question turn shares its form too, so the small
embedder and BM25 rank them alike. Among the best 50 turns of a long multi-session
benchmark (bench/README.md), 90% of the evidence turns speak in the first person against
63% of the others, 12% ask against 31%, and 82% are longer than 120 characters against 57%.

The preference is a small bonus on the rank-fused score, so it only reorders turns that
matched about as well: at RRF k=2 the first turn scores 1/2 and the second 1/3, further
apart than the whole bonus can move a turn (``3 * TELLING_WEIGHT``), so the best match
stays first and the bonus sorts out the turns behind it.
"""

from __future__ import annotations

import re
from typing import Final

from memhub._cjk import HAN
from memhub.engine.conversation import CONTEXT, is_question
from memhub.engine.payload import Memory

TELLING_WEIGHT: Final = 0.05
"""Bonus per sign that a turn tells something, on RRF scores ``1 / (rank + k)``. On a long
multi-session benchmark recall@10 0.797 -> 0.808 (multi-hop 0.490 -> 0.519, open-domain
0.489 -> 0.547); 0.03-0.06 all gave 0.803-0.808 (bench/README.md)."""
# A turn this long (in words; two Han characters count as one) tells as much as length can.
FULL_TURN = 30

_FIRST_PERSON = re.compile(
    r"(?<![^\W_])(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|"
    r"ours)(?![^\W_])|我|咱",
    re.IGNORECASE,
)
_LATIN_WORD = re.compile(rf"[^\W\d_{HAN}]+")
_HAN_RUN = re.compile(f"[{HAN}]")


def words(text: str) -> float:
    """About how many words ``text`` holds: Latin-script words, and a word per two Han
    characters (Chinese is not spaced; its words are one to three characters).

    Example:
        >>> words("I went to the lake."), words("我上周去了湖边。")
        (5.0, 3.5)
    """
    return len(_LATIN_WORD.findall(text)) + len(_HAN_RUN.findall(text)) / 2


def tells(text: str, answered: bool = False) -> float:
    """How much a turn looks like someone telling something, from -1 to 2: +1 when it speaks
    in the first person, -1 when it ends by asking (unless ``answered``), up to +1 for its
    length.

    Example:
        >>> tells("I signed up for a pottery class yesterday."), tells("Did you go?")
        (1.2666666666666666, -0.9)
    """
    score = min(1.0, words(text) / FULL_TURN)
    if _FIRST_PERSON.search(text):
        score += 1.0
    if not answered and is_question(text):
        score -= 1.0
    return score


def prefer_telling(
    hits: list[tuple[Memory, float]], rrf_k: int, weight: float = TELLING_WEIGHT
) -> list[tuple[Memory, float]]:
    """Re-rank turns (best first) by ``1 / (rank + rrf_k) + weight * tells(content)``.

    A question whose answer (the turn indexed with it as its context) ranks above it is not
    held back for asking: the answer was found, and the question is what it answers ("dog
    name": "He's called Rex.", then "What's the name of your dog?"). Nothing is lost or
    added; scores are that sum normalised to 0..1 (1 = first, and telling as much as a turn
    can).
    """
    best = 1 / rrf_k + 2 * weight
    answered: set[str] = set()
    score: dict[str, float] = {}
    for i, (p, _) in enumerate(hits):
        told = tells(p.get("content", ""), answered=p["id"] in answered)
        score[p["id"]] = 1 / (i + rrf_k) + weight * told
        if context := p.get(CONTEXT):
            answered.add(context)
    ranked = sorted((p for p, _ in hits), key=lambda p: (-round(score[p["id"]], 9), p["id"]))
    return [(p, round(min(1.0, max(0.0, score[p["id"]] / best)), 4)) for p in ranked]
