"""Raw conversation turns: what each is indexed as, and how a question about a person ranks them.

A turn in a long chat rarely stands alone: "Yep, the third one!" answers the question
before it, and "Wow, that's amazing!" is about what the other speaker just said. A
turn is stored as it was said; its index carries the turn before it (its *context*,
named by ``context_id`` on the record), so the answer is found by the question's words.
And a question that names a participant ("What has Melanie painted?") is about what
that person said, not about every turn that addresses them by name.

Figures on a long multi-session benchmark (turn-level evidence recall@10, e5 + BM25,
RRF k=2; bench/README.md): dated turns alone 0.684; with the previous turn in the BM25
text and 0.3 of its vector in the dense one 0.743; with the speaker preference 0.763.

The context is rebuilt from ``context_id`` wherever a turn is (re-)indexed: on write,
on an import that re-embeds, and when governance seals or tombstones the context turn
(the turn is then indexed alone, so none of the sealed words stay in its index).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from memhub._cjk import HAN_CHAR
from memhub.engine.core import Engine, with_access
from memhub.engine.payload import Memory, as_stored
from memhub.engine.records import GOVERNED
from memhub.ids import to_point_id
from memhub.store.base import Match, StoredPoint, Where

CONTEXT: Final = "context_id"
"""Payload key of a raw turn: the id of the turn it is indexed with (the one before it)."""
# How much of the previous turn's vector a turn's dense vector carries. 0.3 was best of
# 0 / 0.3 / 0.5 / 1.0: more and a turn ranks for what the other speaker said.
CONTEXT_WEIGHT = 0.3
# Only chat-sized turns are indexed together: a turn longer than this is a document, which
# carries its own topic and is not a reply (the longest turn of the benchmark: 446).
CHAT_TURN = 2_000

_WORD = re.compile(r"[^\W_]+")


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def dated_text(content: str, occurred_at: str | None) -> str:
    """What a raw turn is embedded and BM25-indexed as: the day it happened, then its text.

    The day is written the way the text's language writes dates ("2023年12月25日：…",
    "December 25, 2023: …"), so questions about a time ("去年12月", "in December")
    and the episodic wording of a conversation find it. Only the index sees the date:
    the stored ``content`` is unchanged. Without a parseable ``occurred_at`` (an
    ISO 8601 date or datetime) the text is indexed as it is.

    Example:
        >>> dated_text("Bart danced at the Christmas party.", "2023-12-25")
        'December 25, 2023: Bart danced at the Christmas party.'
    """
    m = _ISO_DAY.match(occurred_at or "")
    if not m:
        return content
    year, month, day = (int(g) for g in m.groups())
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return content
    if HAN_CHAR.search(content):
        return f"{year}年{month}月{day}日：{content}"
    return f"{_MONTHS[month - 1]} {day}, {year}: {content}"


def index_text(content: str, occurred_at: str | None, context: str | None = None) -> str:
    """What a raw turn is BM25-indexed as: its day, the turn before it (if any), the turn.

    Example:
        >>> index_text("VS Code, always.", "2023-12-25", "What editor do you use?")
        'December 25, 2023: What editor do you use?\\nVS Code, always.'
    """
    return dated_text(f"{context}\n{content}" if context else content, occurred_at)


def in_context(
    own: Sequence[float], context: Sequence[float] | None, weight: float = CONTEXT_WEIGHT
) -> list[float]:
    """A turn's dense vector: ``normalize(own + weight * context)``, or ``own`` alone.

    ``own`` and ``context`` are the embeddings of each turn's dated text alone. Mean-pooled
    embeddings of two texts add up roughly as the embedding of both, so the context costs
    no second pass of the model.
    """
    if context is None:
        return list(own)
    mixed = [a + weight * b for a, b in zip(own, context, strict=True)]
    norm = math.sqrt(sum(x * x for x in mixed)) or 1.0
    return [x / norm for x in mixed]


def usable(turn: Memory | None, of: Memory) -> Memory | None:
    """``turn`` if it may give ``of`` its context: a visible raw turn of the same owner."""
    if (
        turn is None
        or turn.get("exposure", "visible") in GOVERNED
        or turn.get("layer") != "raw"
        or not turn.get("content")
        or turn.get("tenant") != of.get("tenant")
        or turn.get("user_id") != of.get("user_id")
    ):
        return None
    return turn


def _chat(turn: Memory) -> bool:
    return len(turn["content"]) <= CHAT_TURN


def _own_text(turn: Memory) -> str:
    return dated_text(turn["content"], turn.get("occurred_at"))


async def index(
    engine: Engine,
    turns: Sequence[Memory],
    known: Mapping[str, Memory],
    shorten: Callable[[list[str]], list[str]] | None = None,
) -> tuple[list[str], list[list[float]]]:
    """The BM25 texts and dense vectors of raw turns (payloads), each with its context.

    A turn's context is the turn its ``context_id`` names, looked up among ``turns`` and
    ``known`` (id -> payload), when ``usable``. Every text is embedded alone, the turns'
    and the contexts' not among them, in one call; ``shorten`` says what part of each
    text the embedder reads (the write's budget for long turns).
    """
    by_id = {**known, **{t["id"]: t for t in turns}}
    context = [
        c
        if (c := usable(by_id.get(t.get("context_id") or ""), t)) and _chat(c) and _chat(t)
        else None
        for t in turns
    ]
    texts = {t["id"]: _own_text(t) for t in turns}
    for c in context:
        if c is not None and c["id"] not in texts:
            texts[c["id"]] = _own_text(c)
    ids = list(texts)
    read = list(texts.values())
    embedded = await engine.embedder.embed_passages(shorten(read) if shorten else read)
    vectors = dict(zip(ids, embedded, strict=True))
    return (
        [
            index_text(t["content"], t.get("occurred_at"), c["content"] if c else None)
            for t, c in zip(turns, context, strict=True)
        ],
        [
            in_context(vectors[t["id"]], vectors[c["id"]] if c else None)
            for t, c in zip(turns, context, strict=True)
        ],
    )


async def context_of(engine: Engine, turns: Sequence[Memory]) -> dict[str, Memory]:
    """The stored context turns of ``turns`` that are not among them: id -> payload."""
    mine = {t["id"] for t in turns}
    wanted = list({i for t in turns if (i := t.get("context_id")) and i not in mine})
    return {p["id"]: p for p in await engine.get_many(wanted)} if wanted else {}


async def reindex(engine: Engine, turns: Sequence[Memory]) -> None:
    """Index stored raw turns again from their text and their context as it is now.

    The payload is left as it is (a conditional upsert on its ``rev``: a turn changed
    meanwhile keeps its vectors, and the change that made it re-indexes it if needed).
    """
    turns = [t for t in turns if t.get("exposure", "visible") not in GOVERNED]
    if not turns:
        return
    texts, vectors = await index(engine, turns, await context_of(engine, turns))
    for turn, text, vector in zip(turns, texts, vectors, strict=True):
        await engine.store.upsert(
            "memories",
            [
                StoredPoint(
                    to_point_id(turn["id"]),
                    as_stored(with_access(turn)),
                    vector,
                    engine.bm25.document(text),
                )
            ],
            only_if=Where(must=(Match("rev", turn.get("rev", 0)),)),
        )


def followers(payload: Memory) -> Where:
    """The raw turns of ``payload``'s owner indexed with ``payload`` as their context."""
    user = payload.get("user_id")
    must = [
        Match("tenant", payload["tenant"]),
        Match("layer", "raw"),
        Match(CONTEXT, payload["id"]),
    ]
    if user:
        must.append(Match("user_id", user))
    return Where(must=tuple(must))


def named(query: str, speakers: set[str]) -> set[str]:
    """The speakers the query names, as whole words (Chinese names: anywhere in the query).

    When it names every speaker in sight, two or more, it prefers the ones it asks about:
    "What did Alice say about Bob's painting?" and "What did Alice give to Bob?" are about
    what Alice said, so a name in the possessive or after a preposition is not preferred
    (``_asked_about``). When that leaves all or none of them ("What do Alice and Bob
    share?"), none is preferred, and the empty set is returned. One speaker in sight is
    preferred when named: the turns that share a word with "What did Alice paint?" may all
    be hers.
    """
    words = set(_WORD.findall(query.lower()))
    lowered = query.lower()
    hit = {
        s
        for s in speakers
        if s and (s.lower() in lowered if HAN_CHAR.search(s) else s.lower() in words)
    }
    if hit != speakers or len(hit) < 2:
        return hit
    asked = {s for s in hit if _asked_about(query, s)}
    return asked if len(asked) < len(hit) else set()


# Words after which a name is an object, not whom a question asks about; "and" and "or"
# join it to another name (both asked about, or neither).
_OBJECT_BEFORE = re.compile(
    r"(?:(?<![^\W_])(?:about|to|with|for|from|besides|than|of|at|by|towards?|and|or)|&)\s*$",
    re.I,
)
_AFTER_NAME = re.compile(r"['’]s(?![^\W_])|\s+(?:and|or)\s|\s*&", re.I)


def _asked_about(query: str, name: str) -> bool:
    """Whether ``name`` stands in ``query`` as the one asked about: its first mention is not
    in the possessive, after a preposition or joined to another name by "and" (English word
    order; a Chinese name is never singled out this way).
    """
    if HAN_CHAR.search(name):
        return False
    m = re.search(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", query, re.I)
    if m is None:
        return False
    return not (_OBJECT_BEFORE.search(query[: m.start()]) or _AFTER_NAME.match(query, m.end()))


def speakers(hits: list[tuple[Memory, float]]) -> set[str]:
    """The recorded speakers of these turns."""
    return {p["speaker"] for p, _ in hits if p.get("speaker")}


def without_names(query: str, who: set[str]) -> str:
    """``query`` without the names of ``who`` (nor an English possessive after one).

    A name in a question about a conversation says whose turns to prefer (``prefer_speakers``),
    not what they are about: left in, it draws the dense match towards every turn that
    addresses that person ("Wow, Melanie, that's great!"). On a long multi-session benchmark
    (bench/README.md) the question searched without the name it asks about raised recall@5
    0.662 -> 0.693 and recall@10 0.763 -> 0.773 (open-domain 0.39 -> 0.46, temporal 0.82 ->
    0.87).

    Example:
        >>> without_names("What did Alice's brother paint?", {"Alice"})
        'What did brother paint?'
    """
    for name in sorted(who, key=len, reverse=True):
        if HAN_CHAR.search(name):
            query = query.replace(name, " ")
        else:
            query = re.sub(
                rf"(?<![^\W_]){re.escape(name)}(?:['’]s)?(?![^\W_])", " ", query, flags=re.I
            )
    return " ".join(query.split())


def prefer_speakers(
    query: str, hits: list[tuple[Memory, float]], rrf_k: int, who: set[str] | None = None
) -> list[tuple[Memory, float]]:
    """Re-rank turns (best first) so that those spoken by a participant the query names climb.

    The turns of the named speakers, in their order, are a second ranking fused with the
    first by RRF (``rrf_k``): a named speaker's turn gains, and another turn that matches
    the question well keeps its place ahead of a named speaker's weak one. Turns without
    a recorded speaker (messages without ``name``) are never preferred. Re-ranked scores
    are that fusion normalised to 0..1 (1 = first in both); unchanged when nobody is named.
    ``who``: the named speakers, when the caller has found them already.
    """
    if who is None:
        who = named(query, speakers(hits))
    if not who:
        return hits
    return _prefer(hits, lambda p: p.get("speaker") in who, rrf_k)


_TERMINATOR = re.compile(r"[.!?。！？]")


def is_question(text: str) -> bool:
    """Whether a turn ends by asking: its last sentence ends with a question mark.

    Example:
        >>> is_question("Nice! Did you go too? [shares a photo of a park]")
        True
    """
    ends = _TERMINATOR.findall(text)
    return bool(ends) and ends[-1] in "?？"


def answers_follow(hits: list[tuple[Memory, float]]) -> list[tuple[Memory, float]]:
    """Each question among the ranked turns is followed by the turn after it, when that one
    ranks lower: the answer joins the question that found it.

    A question holds the words a search matches ("What's your dog called?"); the answer
    holds what the user wants ("Rex."), and is indexed with the question, but a long answer
    dilutes those words and ranks lower. The question keeps its place; the answer takes
    the place right after it, with its score. On a long multi-session benchmark
    (bench/README.md): recall@5 0.693 -> 0.708, recall@10 0.773 -> 0.780.
    """
    after = {p["context_id"]: p for p, _ in hits if p.get("context_id")}
    out: list[tuple[Memory, float]] = []
    placed: set[str] = set()
    for payload, score in hits:
        turn: Memory | None = payload
        while turn is not None and turn["id"] not in placed:
            out.append((turn, score))
            placed.add(turn["id"])
            asks = is_question(turn.get("content", ""))
            turn = after.get(turn["id"]) if asks else None
    return out


# Pseudo-relevance feedback on the dense side: the query vector plus this share of the mean
# of the first FEEDBACK_TURNS turns' vectors. Best of 1/2/3/5 turns and 0.3/0.5.
FEEDBACK_TURNS = 3
FEEDBACK_WEIGHT = 0.3


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def one_sentence(query: str) -> bool:
    """Whether ``query`` is a single sentence, as a question asked of a memory is.

    Feedback (``with_feedback``) is for such a question: it names its topic in a few words.
    A query of several sentences (a stretch of dialogue) describes its topic already, and
    moving it towards its first results drifts: on MADial-Bench, whose queries are the user's
    turns of a dialogue, conversation R@5 (en) fell 0.620 -> 0.614 with feedback on every query.

    Example:
        >>> one_sentence("Which cities has Jon visited?"), one_sentence("I moved. Any tips?")
        (True, False)
    """
    return len([s for s in _SENTENCE_BREAK.split(query.strip()) if s.strip()]) <= 1


def with_feedback(
    query: Sequence[float], found: Sequence[Sequence[float]], weight: float = FEEDBACK_WEIGHT
) -> list[float]:
    """``normalize(query + weight * mean(found))``: the query moved towards the turns it found.

    A question names what it asks about ("Which cities has Jon visited?"); the turns that
    answer it share the topic of the best matches rather than the question's words ("Took a
    short trip last week to Rome"). The best turns' vectors carry that topic, so the dense
    search is run again from between the question and them. On a long multi-session
    benchmark (bench/README.md) recall@10 0.788 -> 0.797, multi-hop 0.478 -> 0.494.

    Example:
        >>> [round(x, 3) for x in with_feedback([1.0, 0.0], [[0.0, 1.0]], weight=1.0)]
        [0.707, 0.707]
    """
    if not found:
        return list(query)
    mean = [sum(v) / len(found) for v in zip(*found, strict=True)]
    mixed = [q + weight * m for q, m in zip(query, mean, strict=True)]
    norm = math.sqrt(sum(x * x for x in mixed)) or 1.0
    return [x / norm for x in mixed]


def fuse(
    hits: list[tuple[Memory, float]], second: list[tuple[Memory, float]], rrf_k: int, limit: int
) -> list[tuple[Memory, float]]:
    """The first ``limit`` of two rankings of turns fused by RRF (``rrf_k``), scores 0..1.

    ``second`` ranks turns with a property the question asks for (said on the day it names);
    a turn in both gains, one in ``second`` alone can enter. Ties go by id.
    """
    score: dict[str, float] = {}
    payload: dict[str, Memory] = {}
    for ranking in (hits, second):
        for i, (p, _) in enumerate(ranking):
            score[p["id"]] = score.get(p["id"], 0.0) + 1 / (i + rrf_k)
            payload.setdefault(p["id"], p)
    ranked = sorted(payload, key=lambda i: (-round(score[i], 9), i))[:limit]
    return [(payload[i], round(score[i] * rrf_k / 2, 4)) for i in ranked]


def _prefer(
    hits: list[tuple[Memory, float]], keep: Callable[[Memory], bool], rrf_k: int
) -> list[tuple[Memory, float]]:
    """``hits`` fused by RRF with the sub-ranking of those ``keep`` accepts; scores 0..1."""
    score = {p["id"]: 1 / (i + rrf_k) for i, (p, _) in enumerate(hits)}
    for i, (p, _) in enumerate(h for h in hits if keep(h[0])):
        score[p["id"]] += 1 / (i + rrf_k)
    ranked = sorted((p for p, _ in hits), key=lambda p: (-round(score[p["id"]], 9), p["id"]))
    return [(p, round(score[p["id"]] * rrf_k / 2, 4)) for p in ranked]
