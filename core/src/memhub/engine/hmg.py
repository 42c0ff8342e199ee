"""The HMG operations: memorize, recall, correct, govern, handoff, context, history, stats, purge.

Exact semantics: the README's "Operations" section (the HMG guide's vocabulary and
transitions). What holds when an operation fails:

- Bad input, a wrong transition, a missing memory: a typed error, nothing changed.
- Single-record changes (memorize, correct, quarantine, release, handoff) are one
  conditional update or insert: applied or not.
- ``replace`` is two-phase (a pending new version, then the old one superseded); a
  crash in between is finished or undone on the next open (``Engine._recover``).
- A seal or tombstone with a lineage cascade, and ``forget_user``, are many updates:
  a marker listing them is written first, and a failure part-way (a crash, a
  ``ConflictError``) leaves some records hidden and the rest to the next open,
  which finishes them (``resume_govern``, ``erase.resume_forget``). Until then the
  records not yet hidden stay readable.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, get_args

from memhub.engine import conversation, reasons, transitions
from memhub.engine.core import PENDING_STEP, RESUME_STEPS, Engine
from memhub.engine.filters import as_of_filter, reconciling, visible
from memhub.engine.lineage import lineage
from memhub.engine.payload import ITEM_LAYERS, Memory, ReplaceStep, as_memory
from memhub.engine.records import (
    GOVERNED,
    governed_remains,
    held_at,
    new_payload,
    now,
    scope_of,
    to_atom,
    valid_of,
)
from memhub.engine.transitions import one_of
from memhub.engine.valid_time import ended
from memhub.errors import InvalidInputError
from memhub.ids import new_id, to_point_id
from memhub.models import (
    CorrectAction,
    CorrectResult,
    GovernAction,
    GovernResult,
    HandoffResult,
    HistoryResult,
    HistoryStep,
    MemorizeResult,
    RecalledAtom,
    RecallResult,
    Relations,
    SessionContext,
    Stats,
)
from memhub.progress import Progress
from memhub.redact import redact
from memhub.scope import ANY, Scope
from memhub.store.base import (
    HasVector,
    IsEmpty,
    Match,
    MatchAny,
    SparseVector,
    StoredPoint,
    Where,
    every,
)
from memhub.store.schema import collections
from memhub.text import content_hash, infer_epistemic, is_near_duplicate, refuse_nul

RECALL_LAYERS = ("fact", "profile", "lesson", "procedure")
_EPISTEMIC = ("possible", "actual", "necessary")
MAX_CONTENT = 32_000


def clean_content(content: str, what: str = "content") -> tuple[str, list[str]]:
    """Validate and redact user text; the only way text enters the store."""
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError(f"{what} must be a non-empty string")
    if len(content) > MAX_CONTENT:
        raise InvalidInputError(f"{what} is {len(content)} characters; the limit is {MAX_CONTENT}")
    refuse_nul(content, what)
    result = redact(content.strip())
    return result.text, list(result.kinds)


def _reason(reason: str | None) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInputError("reason is required: it is what the audit trail shows")
    return redact(reason.strip()).text


async def find_duplicate(
    engine: Engine,
    text: str,
    vector: list[float],
    scope: Scope,
    layers: Sequence[str] = RECALL_LAYERS,
) -> str | None:
    """An active memory in the same scope saying the same thing (exact or near).

    ``vector`` is the text's passage embedding (the one it would be stored with).
    """
    where = reconciling(scope, layers)
    exact, _ = await engine.store.scroll(
        "memories", where.and_(Match("content_hash", content_hash(text))), limit=1
    )
    if exact:
        return as_memory(exact[0].payload)["id"]
    for hit in await engine.store.dense_query(vector, where, limit=3):
        near = as_memory(hit.point.payload)
        if is_near_duplicate(text, near.get("content", ""), hit.score):
            return near["id"]
    return None


async def memorize(
    engine: Engine,
    content: str,
    scope: Scope,
    *,
    epistemic: str | None = None,
    polarity: str | None = None,
    source: str = "agent",
    layer: str = "fact",
    metadata: dict[str, Any] | None = None,
) -> MemorizeResult:
    text, kinds = clean_content(content)
    if epistemic is not None and epistemic not in _EPISTEMIC:
        raise InvalidInputError(f"epistemic must be one of {_EPISTEMIC}, not {epistemic!r}")
    if polarity is not None and polarity not in ("positive", "negative"):
        raise InvalidInputError("polarity must be 'positive' or 'negative'")
    vector = (await engine.embedder.embed_passages([text]))[0]
    async with engine.write_lock:
        duplicate = await find_duplicate(engine, text, vector, scope)
        if duplicate:
            dup = await engine.get(duplicate, scope.tenant)
            return MemorizeResult(
                atom_id=duplicate,
                effect="no_op",
                epistemic=dup["epistemic"],
                polarity=dup["polarity"],
                redacted=kinds,
                duplicate_of=duplicate,
                **epistemic_candidate(dup, epistemic or infer_epistemic(text)),
            )
        payload = new_payload(
            new_id(),
            text,
            layer=layer,
            scope=scope,
            source=source,
            epistemic=epistemic,
            polarity=polarity,
            metadata=metadata,
        )
        await engine.insert([payload], [text], [vector])
        await engine.log(payload["id"], "status", "memorize", tenant=scope.tenant, after="active")
        await engine.bump()
    return MemorizeResult(
        atom_id=payload["id"],
        effect="applied",
        epistemic=payload["epistemic"],
        polarity=payload["polarity"],
        redacted=kinds,
    )


# (stored, restated) -> the correct actions that take the memory there
_STEPS = {
    ("actual", "possible"): ["demote"],
    ("necessary", "possible"): ["demote"],
    ("possible", "actual"): ["confirm_actual"],
    ("actual", "necessary"): ["confirm_necessary"],
    ("possible", "necessary"): ["confirm_actual", "confirm_necessary"],
    ("necessary", "actual"): ["demote", "confirm_actual"],
}


def epistemic_candidate(stored: Memory, restated: str) -> dict[str, str]:
    """A restatement at another epistemic level is not a plain duplicate: it is reported
    as a correction candidate (never applied on its own: hearsay must not silently
    weaken a fact, nor a restatement silently confirm a guess)."""
    steps = _STEPS.get((stored["epistemic"], restated))
    if not steps:
        return {}
    note = (
        f"already stored as {stored['epistemic']}, restated as {restated}: "
        f"to change it, correct({stored['id']!r}, ...) with {' then '.join(steps)}"
    )
    return {"suggested_correction": steps[0], "note": note}


async def recall(
    engine: Engine,
    query: str,
    scope: Scope,
    *,
    limit: int = 10,
    layers: Sequence[str] = RECALL_LAYERS,
    as_of: str | None = None,
) -> RecallResult:
    """Current memories of the scope for ``query``; with ``as_of``, those that held then
    (``filters.as_of_filter``)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string")
    if not 1 <= limit <= 200:
        raise InvalidInputError("limit must be between 1 and 200")
    at, statuses, when = as_of_filter(as_of)
    where = visible(scope, layers, statuses=statuses).and_(*when)
    if scope.workspace not in (None, ANY):  # never inferred: named, it narrows
        where = where.and_(Match("workspace", scope.workspace))
    hits = [h for h in await hybrid(engine, query, where, limit) if held_at(h[0], at)]
    return RecallResult(
        atoms=[
            RecalledAtom(
                atom_id=p["id"],
                content=p["content"],
                score=score,
                created_at=p["created_at"],
                source=p.get("source"),
                layer=p["layer"],
                epistemic=p.get("epistemic"),
                valid_from=valid["valid_from"],
                valid_precision=valid["valid_precision"],
            )
            for p, score in hits
            for valid in (valid_of(p),)
        ]
    )


async def query_vectors(engine: Engine, query: str) -> tuple[list[float], SparseVector]:
    """The dense and BM25 vectors of a (redacted) query, to run several searches with one
    embedding.
    """
    query = redact(query).text
    return await engine.embedder.embed_query(query), engine.bm25.query(query)


async def hybrid(
    engine: Engine,
    query: str | tuple[list[float], SparseVector],
    where: Where,
    limit: int,
    weights: tuple[float, float] = (1.0, 1.0),
    prefetch: int | None = None,
) -> list[tuple[Memory, float]]:
    """Dense + BM25 fused by RRF; scores normalised to 0..1 (1 = ranked first by both).

    ``query`` is the text, or its :func:`query_vectors`. ``weights`` (dense, bm25):
    Qdrant's weighted RRF scores rank ``pos`` of a source as ``1 / ((pos + 1) / w + k - 1)``.
    ``prefetch``: candidates of each source (default ``max(50, 5 * limit)``).
    """
    dense, sparse = await query_vectors(engine, query) if isinstance(query, str) else query
    hits = await engine.store.hybrid_query(
        dense,
        sparse,
        where,
        limit=limit,
        prefetch_limit=prefetch or max(50, limit * 5),
        rrf_k=engine.rrf_k,
        weights=None if weights == (1.0, 1.0) else weights,
    )
    used = weights if sparse.indices else weights[:1]
    best = sum(1 / (1 / w + engine.rrf_k - 1) for w in used)
    # Qdrant returns RRF ties (common with BM25) in arbitrary order: break them by id.
    found = [(as_memory(h.point.payload), h.score) for h in hits]
    ordered = sorted(found, key=lambda h: (-round(h[1], 9), h[0]["id"]))
    return [(p, round(min(1.0, score / best), 4)) for p, score in ordered]


async def correct(
    engine: Engine,
    target_atom: str,
    action: str,
    reason: str,
    scope: Scope,
    new_content: str | None = None,
) -> CorrectResult:
    action = one_of(action, get_args(CorrectAction), "correct action")
    why = _reason(reason)
    if action == "replace":
        text, _ = clean_content(new_content or "", "new_content (required for replace)")
    elif new_content is not None:
        raise InvalidInputError(f"new_content is only for replace, not {action}")
    async with engine.write_lock:
        old = await engine.get_owned(target_atom, scope)
        await check_correctable(engine, action, old)
        if action == "replace":
            new_atom = await replace_version(engine, old, text, why, action="replace")
            await engine.bump()
            return CorrectResult(
                atom_id=target_atom,
                action=action,
                effect="applied",
                new_atom_id=new_atom["id"],
                status="superseded",
                epistemic=new_atom["epistemic"],
            )
        if action == "negate":
            # no longer true from now: an ``as_of`` read before today still finds it
            await engine.update(old, {"status": "negated", "valid_to": now()})
            await engine.log(
                target_atom,
                "status",
                action,
                tenant=scope.tenant,
                before=old["status"],
                after="negated",
                reason=why,
            )
            await engine.bump()
            return CorrectResult(
                atom_id=target_atom,
                action=action,
                effect="applied",
                status="negated",
                epistemic=old["epistemic"],
            )
        after = transitions.epistemic_after(action, old["epistemic"])
        if after is None:
            return CorrectResult(
                atom_id=target_atom,
                action=action,
                effect="no_op",
                status=old["status"],
                epistemic=old["epistemic"],
            )
        await engine.update(old, {"epistemic": after})
        await engine.log(
            target_atom,
            "epistemic",
            action,
            tenant=scope.tenant,
            before=old["epistemic"],
            after=after,
            reason=why,
        )
        await engine.bump()
        return CorrectResult(
            atom_id=target_atom,
            action=action,
            effect="applied",
            status=old["status"],
            epistemic=after,
        )


async def chain_head(engine: Engine, payload: Memory) -> Memory:
    """The current version of ``payload``'s chain: follow ``superseded_by`` to its end."""
    seen = {payload["id"]}
    while (successor := payload.get("superseded_by")) and successor not in seen:
        seen.add(successor)
        payload = await engine.get(successor, payload["tenant"])
    return payload


async def check_correctable(engine: Engine, action: str, old: Memory) -> None:
    """``transitions.check_correctable``, naming the chain's current version when ``old`` is
    replaced.
    """
    status = old.get("status", "active")
    head = (await chain_head(engine, old))["id"] if status == "superseded" else None
    transitions.check_correctable(action, status, old["exposure"], head)


def superseded_by(old: Memory, new: Memory) -> Memory:
    """The patch that makes ``old`` a past version of ``new``: it held until ``new`` began."""
    return {
        "status": "superseded",
        "superseded_by": new["id"],
        "valid_to": ended(old.get("valid_from"), new.get("valid_from") or now()),
    }


async def replace_version(
    engine: Engine,
    old: Memory,
    text: str,
    reason: str,
    *,
    action: str,
    layer: str | None = None,
    extra: dict[str, Any] | None = None,
    vector: list[float] | None = None,
    vector_text: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Memory:
    """Write a new version of ``old`` so that a chain never has two active versions.

    Two phases, safe against a crash at any point: the new version is written as
    ``pending`` (invisible, carrying its audit step), then the old one is conditionally
    marked superseded, the step is logged on both, and the new one is activated.
    ``Engine._recover`` finishes (audit step included) or undoes phase one on the next open.
    """
    step: ReplaceStep = {"action": action, "reason": reason, "before": old["status"]}
    new = new_payload(
        new_id(),
        text,
        layer=layer or old["layer"],
        scope=Scope(**scope_of(old)),
        source=old.get("source", "agent"),
        chain_root=old.get("chain_root", old["id"]),
        version=int(old.get("version", 1)) + 1,
        status="pending",
        supersedes=old["id"],
        metadata=old.get("metadata") if metadata is None else metadata,
        **{**(extra or {}), PENDING_STEP: step},
    )
    await engine.insert([new], [vector_text or text], [vector] if vector is not None else None)
    try:
        await engine.update(old, superseded_by(old, new))
    except BaseException:
        await engine.store.delete("memories", [to_point_id(new["id"])])
        raise
    await engine.log_replace(old, new["id"], new[PENDING_STEP])
    return await engine.activate(new)


async def govern(
    engine: Engine,
    target_atom: str,
    action: str,
    reason: str,
    scope: Scope,
    lesson_content: str | None = None,
) -> GovernResult:
    """Change whether a memory may exist; see ``GovernResult`` for what was changed.

    Sealing and tombstoning (``derive_lesson`` seals) also reach the memory's lineage
    (``memhub.engine.lineage``): the raw turns it was extracted from and every memory
    extracted or derived from it or from them get the same exposure, unless already
    sealed or tombstoned, so no read returns the text through another record. A lesson
    is not lineage: it stays recallable. The reasons of their earlier audit steps are
    erased, and this step's reason keeps no word it shares with their text
    (``memhub.engine.reasons``).
    """
    action = one_of(action, get_args(GovernAction), "govern action")
    why = _reason(reason)
    if action == "derive_lesson":
        lesson_text, _ = clean_content(
            lesson_content or "", "lesson_content (required for derive_lesson)"
        )
    elif lesson_content is not None:
        raise InvalidInputError(f"lesson_content is only for derive_lesson, not {action}")
    async with engine.write_lock:
        old = await engine.get_owned(target_atom, scope)
        after = transitions.exposure_after(action, old["exposure"])
        if after is None:
            return GovernResult(
                atom_id=target_atom, action=action, effect="no_op", exposure_state=old["exposure"]
            )
        # read before anything is hidden: hiding drops the links it follows
        related = await lineage(engine, old) if after in GOVERNED else []
        hidden = [old, *(p for p, _ in related if p.get("exposure") not in GOVERNED)]
        if after in GOVERNED:  # earlier reasons may quote the text (memhub.engine.reasons)
            why = reasons.without_quotes(why, map(reasons.text_of, hidden))
            ids = [p["id"] for p in hidden]
            await engine.erase_reasons(ids, reasons.erased(after), near=_versions(hidden))
        lesson_id = None
        if action == "derive_lesson":
            lesson_id = await _store_lesson(engine, old, lesson_text)
            old = {**old, "lessons": [*old.get("lessons", []), lesson_id]}
        todo = [
            (p, f"{why} ({relation})")
            for p, relation in related
            if p.get("exposure") not in GOVERNED
        ]
        # a cascade is many updates: a marker lists them first, and the next open finishes
        # the ones a crash or a conflict left undone (resume_govern)
        marker = None
        if todo:
            steps = [[old["id"], why], *([p["id"], r] for p, r in todo)]
            marker = await _mark(
                engine,
                "pending_govern",
                tenant=old["tenant"],
                exposure=after,
                action=action,
                steps=steps,
            )
        await hide(engine, old, after, why, action)
        cascaded = []
        for payload, step_reason in todo:
            await hide(engine, payload, after, step_reason, action)
            cascaded.append(payload["id"])
        if marker:
            await engine.store.delete("meta", [marker])
        if lesson_id:
            await engine.log(
                lesson_id,
                "relation",
                "derive_lesson",
                tenant=old["tenant"],
                reason=why,
                related=target_atom,
            )
        await engine.bump()
    return GovernResult(
        atom_id=target_atom,
        action=action,
        effect="applied",
        exposure_state=after,
        lesson_atom_id=lesson_id,
        cascaded=cascaded,
    )


def _versions(payloads: Sequence[Memory]) -> list[str]:
    """The other versions of these memories: their replace steps name them too."""
    return [i for p in payloads for i in (p.get("supersedes"), p.get("superseded_by")) if i]


async def _mark(engine: Engine, kind: str, **fields: Any) -> str:
    """A pending-operation marker in ``meta``; returns its point id."""
    point_id = str(uuid.uuid4())
    await engine.store.upsert("meta", [StoredPoint(point_id, {"kind": kind, **fields})])
    return point_id


async def resume_govern(engine: Engine) -> None:
    """Finish seal/tombstone cascades a crash or a conflict interrupted (run on open)."""
    for marker in await every(engine.store, "meta", Where(must=(Match("kind", "pending_govern"),))):
        m = marker.payload
        for atom_id, reason in m["steps"]:
            found = await engine.get_many([atom_id])
            if found and found[0].get("exposure") not in GOVERNED:
                await hide(engine, found[0], m["exposure"], reason, m["action"])
        await engine.store.delete("meta", [marker.id])


RESUME_STEPS.append(resume_govern)


async def _store_lesson(engine: Engine, source: Memory, text: str) -> str:
    # the lesson outlives the session and the agent that learnt it
    kept = ("tenant", "user_id", "app_id", "workspace", "repository", "branch")
    scope_keys = {k: v for k, v in scope_of(source).items() if k in kept}
    payload = new_payload(
        new_id(),
        text,
        layer="lesson",
        scope=Scope(**scope_keys),
        source=engine.actor,
        lesson_of=[source["id"]],
    )
    await engine.insert([payload], [text])
    await engine.log(
        payload["id"], "status", "derive_lesson", tenant=payload["tenant"], after="active"
    )
    return payload["id"]


async def hide(
    engine: Engine,
    payload: Memory,
    exposure: str,
    reason: str,
    action: str,
    *,
    followers: bool = True,
) -> None:
    """Change exposure; sealing and tombstoning drop the content and the vectors.

    A raw turn sealed or tombstoned no longer gives its words to the turns indexed with it
    (``memhub.engine.conversation``): they are indexed again, alone. ``followers=False``
    skips that when they go too (``forget_user``: a context never leaves its user).
    """
    if exposure in GOVERNED:
        await engine.update(payload, governed_remains(payload, exposure), replace=True)
        await engine.store.delete_vectors([to_point_id(payload["id"])])
        if followers and payload.get("layer") == "raw":
            after = await every(engine.store, "memories", conversation.followers(payload))
            await conversation.reindex(engine, [as_memory(p.payload) for p in after])
    else:
        await engine.update(payload, {"exposure": exposure})
    await engine.log(
        payload["id"],
        "exposure",
        action,
        tenant=payload["tenant"],
        before=payload["exposure"],
        after=exposure,
        reason=reason,
    )


async def handoff(engine: Engine, summary: str, scope: Scope) -> HandoffResult:
    text, _ = clean_content(summary, "summary")
    async with engine.write_lock:
        payload = new_payload(
            new_id(), text, layer="handoff", scope=scope, source=engine.actor, epistemic="actual"
        )
        await engine.insert([payload], [text])
        await engine.log(payload["id"], "status", "handoff", tenant=scope.tenant, after="active")
        await engine.bump()
    return HandoffResult(atom_id=payload["id"])


async def session_context(
    engine: Engine, scope: Scope, *, handoffs: int = 3, constraints: int = 50
) -> SessionContext:
    recent, _ = await engine.store.scroll(
        "memories",
        visible(scope, ("handoff",)),
        limit=handoffs,
        order_by="created_at",
        descending=True,
    )
    rules, _ = await engine.store.scroll(
        "memories",
        visible(scope, RECALL_LAYERS).and_(Match("epistemic", "necessary")),
        limit=constraints,
        order_by="created_at",
        descending=True,
    )
    atoms = [to_atom(as_memory(p.payload)) for p in recent]
    return SessionContext(
        handoff=atoms[0] if atoms else None,
        earlier_handoffs=atoms[1:],
        constraints=[to_atom(as_memory(p.payload)) for p in rules],
    )


async def history(engine: Engine, atom_id: str, scope: Scope) -> HistoryResult:
    payload = await engine.get_owned(atom_id, scope)
    chain = await _chain(engine, payload)
    lessons = payload.get("lessons", []) + payload.get("lesson_of", [])
    steps: dict[str, list[HistoryStep]] = {"exposure": [], "epistemic": [], "status": []}
    for event in await engine.events(atom_id):
        if event["kind"] in steps:
            steps[event["kind"]].append(HistoryStep.model_validate(event))
    return HistoryResult(
        atom_id=atom_id,
        current=to_atom(payload),
        relations=Relations(
            supersedes=[payload["supersedes"]] if payload.get("supersedes") else [],
            superseded_by=[payload["superseded_by"]] if payload.get("superseded_by") else [],
            related_lessons=lessons,
            chain=chain,
        ),
        exposure_history=steps["exposure"],
        epistemic_history=steps["epistemic"],
        status_history=steps["status"],
    )


async def _chain(engine: Engine, payload: Memory) -> list[str]:
    root = payload.get("chain_root")
    if not root:
        return [payload["id"]]
    members = await every(engine.store, "memories", Where(must=(Match("chain_root", root),)))
    ordered = sorted(
        (m for m in map(as_memory, (p.payload for p in members)) if m.get("status") != "pending"),
        key=lambda p: (p.get("version", 1), p["id"]),
    )
    return [p["id"] for p in ordered]


async def stats(
    engine: Engine, tenant: str | None = None, scope: dict[str, str] | None = None
) -> Stats:
    """What the tenant's store holds; with ``scope`` (e.g. ``{"user_id": "alice"}``), only
    the memories stored with exactly those scope values."""
    scope = scope or {}
    # adapters' store items share the collection but are not memories
    must = ((Match("tenant", tenant),) if tenant else ()) + tuple(
        Match(k, v) for k, v in sorted(scope.items())
    )
    base = Where(must=must, must_not=(MatchAny("layer", ITEM_LAYERS),))
    count = engine.store.count
    atoms = await count("memories", base)
    supersedes = await count("memories", base.and_(Where(must_not=(IsEmpty("supersedes"),))))
    lessons = await count("memories", base.and_(Where(must_not=(IsEmpty("lesson_of"),))))
    evidence = await count("memories", base.and_(Where(must_not=(IsEmpty("evidence"),))))
    return Stats(
        atoms=atoms,
        edges=supersedes + 2 * lessons + evidence,
        indexes={
            "semantic": await count("memories", base.and_(HasVector("dense"))),
            "keyword": await count("memories", base.and_(HasVector("bm25"))),
            "temporal": await count(
                "memories", base.and_(Where(must_not=(IsEmpty("created_at"),)))
            ),
            "categorical": await count("memories", base.and_(Where(must_not=(IsEmpty("layer"),)))),
        },
        snapshot_version=engine.tenant_snapshot(tenant) if tenant else engine.snapshot_version,
        scope=scope,
    )


async def purge(engine: Engine, progress: Progress | None = None) -> None:
    """Rewrite storage so governed content is physically gone (old pages, WAL)."""
    progress = progress or Progress()
    async with engine.write_lock:
        total = sum([await engine.store.count(name) for name in collections()])
        progress.start("purge", total)
        await engine.store.compact(progress.advance)
        await engine.bump()
