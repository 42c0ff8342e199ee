"""The MemHub read side: grouped search, raw-conversation search, get, list, update, delete."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhub.engine.conversation import (
    FEEDBACK_TURNS,
    answers_follow,
    fuse,
    named,
    one_sentence,
    prefer_speakers,
    speakers,
    with_feedback,
    without_names,
)
from memhub.engine.core import Engine
from memhub.engine.dates import Span, asked_dates, said_within
from memhub.engine.filters import AS_OF_STATUSES, as_of_filter, held_in, visible
from memhub.engine.hmg import (
    chain_head,
    check_correctable,
    clean_content,
    hybrid,
    query_vectors,
    replace_version,
)
from memhub.engine.payload import CHAT_LAYERS, Memory, as_memory, as_stored
from memhub.engine.procedures import content_of, vector_text
from memhub.engine.read.telling import prefer_telling
from memhub.engine.records import (
    GOVERNED,
    held_at,
    shown_content,
    valid_of,
    without_kept_parts,
)
from memhub.engine.valid_time import said_at
from memhub.errors import InvalidInputError, InvalidTransitionError, NotFoundError
from memhub.ids import to_point_id
from memhub.models import (
    ConversationResult,
    ConversationTurn,
    MemoryGroups,
    MemoryItem,
    Procedure,
    SearchResult,
)
from memhub.redact import redact
from memhub.scope import Scope
from memhub.store.base import Match, MatchAny, SparseVector, Where, every, pages

PAST = ("superseded", "negated", "archived")  # no longer current, still in the history
PROCEDURE_WEIGHTS = (
    1.0,
    0.5,
)  # dense, bm25: bench/procedure_bench.py hit@1 0.84 -> 0.86, no top-1 ties
LIST_LAYERS = ("fact", "profile", "procedure", "derived", "lesson", "handoff")
# Candidates ranked on each side before the evidence fusion, as a multiple of the limit:
# MADial-Bench figures were the same with 2x and 5x, and 2x costs ~1 ms less per search.
EVIDENCE_POOL = 2
# Turns ranked before a question naming a speaker re-ranks them (memhub.engine.conversation).
SPEAKER_POOL = 50
# Turns a question naming a date is searched among for those said then (memhub.engine.dates).
DATED_POOL = 100


def metadata_filter(filters: dict[str, Any] | None) -> tuple[Match | MatchAny, ...]:
    """``{"topic": "db"}`` -> conditions on ``metadata.topic``; a list value matches any."""
    if not filters:
        return ()
    if not isinstance(filters, dict):
        raise InvalidInputError("filters must be a mapping of metadata keys to values")
    out: list[Match | MatchAny] = []
    for key, value in filters.items():
        path = f"metadata.{key}"
        if isinstance(value, list | tuple):
            out.append(MatchAny(path, tuple(str(v) for v in value)))
        elif isinstance(value, str | int | bool):
            out.append(Match(path, value))
        else:
            raise InvalidInputError(
                f"filter {key!r}: use a string, number, boolean or a list of them"
            )
    return tuple(out)


async def evolution_chain(engine: Engine, payload: Memory) -> list[str]:
    """Ids of the versions this one replaced, newest first."""
    if not payload.get("supersedes"):
        return []
    members = await every(
        engine.store, "memories", Where(must=(Match("chain_root", payload["chain_root"]),))
    )
    version = payload.get("version", 1)
    older = [m for m in (as_memory(p.payload) for p in members) if m.get("version", 1) < version]
    return [p["id"] for p in sorted(older, key=lambda p: p.get("version", 1), reverse=True)]


async def to_item(engine: Engine, payload: Memory, score: float | None = None) -> MemoryItem:
    proc = payload.get("procedure")
    return MemoryItem(
        id=payload["id"],
        content=shown_content(payload),
        score=score,
        layer=payload.get("layer", "fact"),
        created_at=payload["created_at"],
        occurred_at=payload.get("occurred_at"),
        updated_at=payload.get("updated_at"),
        **valid_of(payload),
        user_id=payload.get("user_id"),
        app_id=payload.get("app_id"),
        agent_id=payload.get("agent_id"),
        session_id=payload.get("session_id"),
        status=payload.get("status", "active"),
        evolution_chain=await evolution_chain(engine, payload),
        procedure=Procedure(**proc) if proc and payload.get("exposure") not in GOVERNED else None,
        metadata=payload.get("metadata") or {},
    )


async def search(
    engine: Engine,
    query: str,
    scope: Scope,
    *,
    app_ids: list[str] | None = None,
    limit: int = 10,
    procedure_limit: int = 0,
    procedure_min_score: float = 0.0,
    derived_context_limit: int = 0,
    filters: dict[str, Any] | None = None,
    as_of: str | None = None,
) -> SearchResult:
    """The user's memories for ``query``, grouped; with ``as_of``, those that held then, as
    they were then (``filters.as_of_filter``)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string")
    if not scope.user_id:
        raise InvalidInputError("user_id is required")
    if (
        not 1 <= limit <= 200
        or not 0 <= procedure_limit <= 50
        or not 0 <= derived_context_limit <= 50
    ):
        raise InvalidInputError(
            "limit must be 1..200, procedure_limit and derived_context_limit 0..50"
        )
    extra = metadata_filter(filters)
    at, statuses, when = as_of_filter(as_of)
    spans = asked_dates(query, at)
    if spans and at is None:  # "我去年在哪工作": also what held then and was replaced since
        statuses, when = (
            AS_OF_STATUSES,
            (Where(should=(Match("status", "active"), *map(held_in, spans))),),
        )
    groups = MemoryGroups()
    vectors = await query_vectors(engine, query)  # one embedding for every search below
    raw = visible(scope, ("raw",), app_ids=app_ids).and_(*when)
    chat = visible(scope, CHAT_LAYERS, app_ids=app_ids, statuses=statuses).and_(*extra, *when)
    replaced = visible(scope, CHAT_LAYERS, app_ids=app_ids, statuses=PAST).and_(*extra)
    found = await with_evidence(engine, vectors, chat, raw, limit, replaced)
    found = [h for h in found if held_at(h[0], at)]
    found = named_time_first(without_kept_parts(found) if at else found, spans)
    for payload, score in found:
        item = await to_item(engine, payload, score)
        group = (
            groups.profile
            if payload["layer"] == "profile"
            else groups.proactive
            if payload.get("proactive")
            else groups.normal
        )
        group.append(item)
    if procedure_limit:
        # Procedures are found by their problem; a query shares few literal words with it
        # (often another language than the error text), so BM25 counts for half here.
        where = visible(scope, ("procedure",), app_ids=app_ids, statuses=statuses)
        hits = await hybrid(
            engine, vectors, where.and_(*extra, *when), procedure_limit, PROCEDURE_WEIGHTS
        )
        groups.procedures = [
            await to_item(engine, p, s)
            for p, s in hits
            if s >= procedure_min_score and held_at(p, at)
        ]
    if derived_context_limit:
        where = visible(scope, ("derived",), app_ids=app_ids, statuses=statuses)
        hits = await hybrid(engine, vectors, where.and_(*extra, *when), derived_context_limit)
        groups.derived = [await to_item(engine, p, s) for p, s in hits if held_at(p, at)]
    return SearchResult(memories=groups)


def named_time_first(
    hits: list[tuple[Memory, float]], spans: list[Span]
) -> list[tuple[Memory, float]]:
    """A question naming a time ("what did I do last May", "我去年在哪工作") is about what held
    then: the memories whose valid time meets one of ``spans`` come first, each side in its
    order. A memory that began before the span and still held in it meets it too."""
    if not spans:
        return hits

    def meets(payload: Memory) -> bool:
        valid = valid_of(payload)
        begun, ended = said_at(valid["valid_from"]), said_at(valid["valid_to"])
        return any(
            begun is not None
            and begun.date() <= s.last
            and (ended is None or ended.date() >= s.first)
            for s in spans
        )

    return sorted(hits, key=lambda h: not meets(h[0]))


async def with_evidence(
    engine: Engine,
    vectors: tuple[list[float], SparseVector],
    where: Where,
    raw: Where,
    limit: int,
    replaced: Where,
) -> list[tuple[Memory, float]]:
    """Memories (``where``) ranked by their own text and by the raw turns (``raw``) they came from.

    An extracted memory is a clause cut out of its conversation ("felt very happy"),
    without the context that made it worth keeping; the raw turn it came from (its
    ``evidence``) keeps that context and its date. Both rankings are fused by RRF:
    a memory whose source turn matches the query climbs, one whose source turn is not
    among the best ``EVIDENCE_POOL * limit`` turns (or is governed) keeps only its own rank.
    A memory without evidence (memorized directly, or a corrected version) stands for
    itself: its own rank counts twice, so it is neither helped nor demoted.
    A turn's rank is credited once, to the best-ranked memory citing it: "which code
    editor" matches "My editor is VS Code. My dog is called Rex." for its first
    sentence, which must not lift "My dog is called Rex" extracted beside it. Memories
    that are no longer current (``replaced``: superseded, negated, deleted) still claim
    the turns they match best, so "where do I live" does not lift "I work at SAP" from
    "I live in Berlin. I work at SAP." after the user has moved.
    MADial-Bench R@5: zh 0.606 -> 0.624, en 0.547 -> 0.596 (bench/README.md).

    Scores are normalised to 0..1 as ``hybrid`` does (1 = first on both sides).
    """
    pool = max(20, EVIDENCE_POOL * limit)
    own = await hybrid(engine, vectors, where, pool)
    if not own:
        return []
    turn_rank = {p["id"]: i for i, (p, _) in enumerate(await hybrid(engine, vectors, raw, pool))}
    rivals = await hybrid(engine, vectors, replaced, pool)
    credit = _credit([p for p, _ in sorted([*rivals, *own], key=lambda h: -h[1])], turn_rank)
    k = engine.rrf_k
    fused: list[tuple[Memory, float]] = []
    for i, (payload, _) in enumerate(own):
        best = credit.get(payload["id"])
        context = turn_rank[best] if best else None if payload.get("evidence") else i
        fused.append((payload, 1 / (i + k) + (0.0 if context is None else 1 / (context + k))))
    fused.sort(key=lambda h: (-round(h[1], 9), h[0]["id"]))
    return [(p, round(min(1.0, s * k / 2), 4)) for p, s in fused[:limit]]


def _credit(ranked: list[Memory], turn_rank: dict[str, int]) -> dict[str, str]:
    """Memory id -> the turn whose rank it gets: memories in rank order each take their best turn
    left.
    """
    credit: dict[str, str] = {}
    taken: set[str] = set()
    for payload in ranked:
        turns = [e for e in payload.get("evidence") or () if e in turn_rank and e not in taken]
        if turns:
            taken.add(best := min(turns, key=turn_rank.__getitem__))
            credit[payload["id"]] = best
    return credit


async def search_conversation(
    engine: Engine,
    query: str,
    scope: Scope,
    *,
    app_ids: Sequence[str] | None = None,
    limit: int = 10,
    as_of: str | None = None,
) -> ConversationResult:
    """The raw turns for ``query``; with ``as_of``, only those said by then."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string")
    if not scope.user_id:
        raise InvalidInputError("user_id is required")
    if not 1 <= limit <= 200:
        raise InvalidInputError("limit must be between 1 and 200")
    at, _, when = as_of_filter(as_of)
    where = visible(scope, ("raw",), app_ids=app_ids).and_(*when)
    # A deeper pool than asked for, so a turn of a speaker the query names, or the answer
    # to a question found, can climb into the first ``limit`` (memhub.engine.conversation).
    pool, prefetch = max(SPEAKER_POOL, limit), max(50, limit * 5)
    # a question naming a participant is searched without the name: the name chooses whose
    # turns, the rest says what about. Who takes part is read off the turns that share a word
    # with the question (BM25, no embedding), so only the text searched is embedded.
    probe = await engine.store.sparse_query(
        engine.bm25.query(redact(query).text), where, limit=prefetch
    )
    who = named(query, speakers([(as_memory(h.point.payload), h.score) for h in probe]))
    topic = without_names(query, who) if who else ""
    vectors = await query_vectors(engine, topic or query)
    hits = await hybrid(engine, vectors, where, pool, prefetch=prefetch)
    # the probe saw no turn of the participant named (none shares a word with the question):
    # who takes part, from the turns found, and the question searched again without the name
    if not who and (who := named(query, speakers(hits))) and (topic := without_names(query, who)):
        vectors = await query_vectors(engine, topic)
        hits = await hybrid(engine, vectors, where, pool, prefetch=prefetch)
    # a question's dense side searched again from between it and the turns it found best
    if hits and one_sentence(query):
        hits = await _with_feedback(engine, vectors, hits, where, pool, prefetch)
    # a question naming a day or a month ranks the turns said then a second time
    # (memhub.engine.dates; recall@10 on a long chat 0.780 -> 0.788, bench/README.md)
    if spans := asked_dates(query, at):
        near = await hybrid(engine, vectors, where, DATED_POOL, prefetch=DATED_POOL)
        then = [h for h in near if said_within(h[0], spans)][:pool]
        if then:
            hits = fuse(hits, then, engine.rrf_k, pool)
    turns = [
        ConversationTurn(
            id=p["id"],
            message_id=p.get("message_id"),
            role=p.get("role", "user"),
            content=p["content"],
            score=s,
            session_id=p.get("session_id"),
            created_at=p["created_at"],
            occurred_at=p.get("occurred_at"),
        )
        for p, s in [h for h in _ranked(query, hits, engine.rrf_k, who) if held_at(h[0], at)][
            :limit
        ]
    ]
    return ConversationResult(turns=turns)


def _ranked(
    query: str, hits: list[tuple[Memory, float]], rrf_k: int, who: set[str]
) -> list[tuple[Memory, float]]:
    """The pool's last re-ranks: an answer after its question, then the turns of the
    participants named, then those that tell something (``telling``)."""
    return prefer_telling(prefer_speakers(query, answers_follow(hits), rrf_k, who), rrf_k)


async def _with_feedback(
    engine: Engine,
    vectors: tuple[list[float], SparseVector],
    hits: list[tuple[Memory, float]],
    where: Where,
    pool: int,
    prefetch: int,
) -> list[tuple[Memory, float]]:
    """``hits`` ranked again with the dense query moved towards the first turns' vectors
    (``conversation.with_feedback``)."""
    top = [to_point_id(p["id"]) for p, _ in hits[:FEEDBACK_TURNS]]
    found = [p.dense for p in await engine.store.retrieve("memories", top, with_vectors=True)]
    dense, sparse = vectors
    moved = with_feedback(dense, [v for v in found if v])
    return await hybrid(engine, (moved, sparse), where, pool, prefetch=prefetch)


async def conversation(
    engine: Engine, scope: Scope, *, app_ids: Sequence[str] | None = None, limit: int = 1000
) -> ConversationResult:
    """A session's raw turns (L0) in the order they were said (the last ``limit``);
    archived and governed ones are left out."""
    if not scope.user_id or not scope.session_id:
        raise InvalidInputError("user_id and session_id are required")
    if not 1 <= limit <= 10_000:
        raise InvalidInputError("limit must be between 1 and 10000")
    where = visible(scope, ("raw",), app_ids=app_ids)
    found = [
        as_memory(p.payload) async for page in pages(engine.store, "memories", where) for p in page
    ]
    # ULIDs sort by creation time, and one add writes its turns in order
    found.sort(key=lambda p: (p.get("occurred_at") or p["created_at"], p["id"]))
    keys = ("id", "message_id", "role", "content", "session_id", "created_at", "occurred_at")
    turns = [
        ConversationTurn(
            **({k: as_stored(p).get(k) for k in keys} | {"role": p.get("role") or "user"})
        )
        for p in found[-limit:]
    ]
    return ConversationResult(turns=turns)


async def get(
    engine: Engine, memory_id: str, scope: Scope, *, as_of: str | None = None
) -> MemoryItem:
    """One memory by id; with ``as_of``, the version of its chain that held then (an older
    one for a date before it was replaced), or not found when none did."""
    payload = await engine.get_owned(memory_id, scope)
    at, statuses, _ = as_of_filter(as_of)
    if at is None:
        return await to_item(engine, payload)
    chain = (Match("chain_root", payload["chain_root"]), Match("tenant", payload["tenant"]))
    members = await every(engine.store, "memories", Where(must=chain))
    held = [
        p
        for p in map(as_memory, (m.payload for m in members))
        if p.get("exposure") == "visible" and p.get("status") in statuses and held_at(p, at)
    ]
    if not held:
        raise NotFoundError(f"memory {memory_id} held at no version on {as_of}")
    return await to_item(engine, max(held, key=lambda p: p.get("version", 1)))


async def list_memories(
    engine: Engine,
    scope: Scope,
    *,
    app_ids: Sequence[str] | None = None,
    include_history: bool = False,
    layers: Sequence[str] = LIST_LAYERS,
    limit: int = 1000,
    as_of: str | None = None,
) -> list[MemoryItem]:
    """A user's memories, newest first; with ``as_of``, those that held then."""
    if not scope.user_id:
        raise InvalidInputError("user_id is required")
    at, current, when = as_of_filter(as_of)
    statuses = ("active", *PAST) if include_history and at is None else current
    where = visible(scope, layers, app_ids=app_ids, statuses=statuses).and_(*when)
    points, _ = await engine.store.scroll(
        "memories", where, limit=limit, order_by="created_at", descending=True
    )
    found = [p for p in map(as_memory, (p.payload for p in points)) if held_at(p, at)]
    return [await to_item(engine, p) for p in (without_kept_parts(found) if at else found)]


async def update(engine: Engine, memory_id: str, content: str, scope: Scope) -> str:
    text, _ = clean_content(content)
    async with engine.write_lock:
        old = await engine.get_owned(memory_id, scope)
        await check_correctable(engine, "update", old)
        if old.get("layer") == "raw":
            raise InvalidInputError("raw conversation records cannot be updated")
        content, extra = _new_version(old, text)
        new = await replace_version(engine, old, content, "update", action="update", **extra)
        await engine.bump()
    return new["id"]


def _new_version(old: Memory, text: str) -> tuple[str, dict[str, Any]]:
    """The updated version's content and ``replace_version`` options. A procedure keeps
    its fields, with the new text as its solution (or as task and solution, when given
    the way procedures read: ``task\n→ solution``)."""
    if not old.get("procedure"):
        return text, {}
    task, arrow, solution = text.partition("\n→ ")
    change = {"task": task.strip(), "solution": solution.strip()} if arrow else {"solution": text}
    p = Procedure(**old["procedure"]).model_copy(update=change)
    kept = {k: v for k, v in as_stored(old).items() if k in ("boundary_scope", "kind", "evidence")}
    extra = {**kept, "procedure": p.model_dump()}
    return content_of(p), {"extra": extra, "vector_text": vector_text(p)}


async def delete(engine: Engine, memory_id: str, scope: Scope) -> None:
    """Archive the current version: gone from search, kept for history (``govern`` erases)."""
    async with engine.write_lock:
        old = await engine.get_owned(memory_id, scope)
        if old["exposure"] in GOVERNED:
            raise InvalidTransitionError(
                f"memory {memory_id} is {old['exposure']}: nothing is left to delete"
            )
        if old["status"] == "archived":
            return
        if old["status"] == "superseded":
            head = (await chain_head(engine, old))["id"]
            raise InvalidTransitionError(
                f"memory {memory_id} is a replaced version; delete the current version {head}"
            )
        await engine.update(old, {"status": "archived"})
        await engine.log(
            memory_id,
            "status",
            "delete",
            tenant=scope.tenant,
            before=old["status"],
            after="archived",
        )
        await engine.bump()
