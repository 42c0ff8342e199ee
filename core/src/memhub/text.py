"""Text heuristics shared by the write path: normalisation, dedupe, epistemic level, polarity."""

from __future__ import annotations

import hashlib
import re
import unicodedata

from memhub.errors import InvalidInputError

_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)
_NUMBER = re.compile(r"\d+(?:\.\d+)*")

# Cue lists are deliberately short and explicit: a wrong "necessary" is worse
# than a missed one, since necessary atoms are shown at every session start.
_NECESSARY = re.compile(
    r"必须|务必|一律|严禁|禁止|不得|不允许|不准|强制|硬性|合规要求|"
    r"\b(?:must|must not|mustn't|shall|never|always|required|mandatory|forbidden|prohibited|"
    r"is not allowed|are not allowed|under no circumstances)\b",
    re.IGNORECASE,
)
_POSSIBLE = re.compile(
    r"可能|也许|或许|大概|应该是|好像|似乎|听说|据说|考虑|评估|打算|计划|待定|不确定|倾向于|候选|"
    r"\b(?:maybe|might|may|perhaps|probably|possibly|consider(?:ing)?|evaluat(?:e|ing)|"
    r"thinking about|not sure|unsure|tbd|rumou?r(?:ed)?|likely|seems?|plan(?:ning)? to|"
    # hearsay, as 听说/据说 above ("I heard back from them" is an event, not hearsay)
    r"(?:i|we|i've|we've) heard(?! back)|heard that|reportedly|apparently|allegedly|"
    r"supposedly|word is)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"不用|不要|不再|不使用|弃用|废弃|放弃|别用|没有|不是|禁止|"
    r"\b(?:not|no longer|don't|do not|doesn't|never|avoid|stop(?:ped)? using|without)\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[，,。.;；!！?？\n]")


def refuse_nul(text: str, what: str = "content") -> None:
    """Refuse a text holding NUL (U+0000), as ids and metadata keys are refused. Refused,
    not dropped: it means nothing in prose, so it is a caller's bug (bytes decoded as text)
    that silently changing the text would hide; tools reading C strings cut the text there;
    and the access keys use it as a mark no stored string holds (``engine.access``)."""
    if "\x00" in text:
        raise InvalidInputError(f"{what} must not contain NUL characters (\\u0000)")


def normalize(text: str) -> str:
    """Case-, width- and punctuation-insensitive form used for hashing and overlap."""
    return _PUNCT.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize(text).encode()).hexdigest()[:32]


def numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(unicodedata.normalize("NFKC", text)))


def _bigrams(text: str) -> set[str]:
    s = normalize(text).replace(" ", "")
    return {s[i : i + 2] for i in range(len(s) - 1)} or {s}


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of character bigrams (works for Chinese without segmentation)."""
    x, y = _bigrams(a), _bigrams(b)
    return len(x & y) / len(x | y) if x | y else 1.0


def negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


def is_near_duplicate(a: str, b: str, cosine: float) -> bool:
    """Same statement in other words: very close, same numbers, same negation.

    Embeddings put "PostgreSQL 16" and "PostgreSQL 17" almost on top of each other,
    so numbers and negation must agree before closeness counts.
    """
    if numbers(a) != numbers(b) or negated(a) != negated(b):
        return False
    return overlap(a, b) >= 0.8 or (cosine >= 0.97 and overlap(a, b) >= 0.5)


def infer_epistemic(text: str) -> str:
    if _NECESSARY.search(text):
        return "necessary"
    if _POSSIBLE.search(text):
        return "possible"
    return "actual"


def infer_polarity(text: str) -> str:
    """``negative`` when the main (first) clause is a negation, else ``positive``.

    "项目用 PostgreSQL 16，不用 MongoDB" is a positive decision with a negative aside.
    """
    first = next((c for c in _CLAUSE.split(text) if c.strip()), text)
    return "negative" if negated(first) else "positive"


def _shorten(text: str, budget: int) -> str:
    """Head and tail of an over-long answer: the conclusion is usually at the end."""
    if len(text) <= budget:
        return text
    half = max(budget // 2 - 2, 1)
    return text[:half] + " … " + text[-half:]


def fit(user: list[str], answers: list[str], max_chars: int) -> tuple[list[str], list[str]]:
    """Keep user messages whole; shorten assistant answers to the remaining budget."""
    left = max(max_chars - sum(len(u) for u in user), 200)
    per = max(left // max(len(answers), 1), 100)
    return user, [_shorten(a, per) for a in answers]
