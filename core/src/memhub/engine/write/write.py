"""The MemHub write pipeline: ``add`` = L0 raw records, extraction, reconciliation, judged writes.

messages ─▶ clean (drop system/tool, redact) ─▶ L0 raw record per message
         ─▶ extractor ─▶ candidates ─▶ neighbours ≥ threshold ─▶ judge (one call)
         ─▶ ADD · NOOP · OVERRIDE · SUPPLEMENT · INVALID · NEED_CONTEXT · RAW_ONLY
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from memhub import cpu
from memhub.engine import conversation, procedures
from memhub.engine.core import Engine
from memhub.engine.filters import reconciling
from memhub.engine.hmg import MAX_CONTENT, epistemic_candidate, replace_version, superseded_by
from memhub.engine.lifecycle.digest import mark_pending
from memhub.engine.payload import CHAT_LAYERS, Memory, as_memory
from memhub.engine.records import new_payload
from memhub.engine.write import procedure_write
from memhub.engine.write.relation import relation_score
from memhub.errors import ConflictError, InvalidInputError
from memhub.ids import new_id
from memhub.messages import Turn, normalize_messages
from memhub.models import Decision, WriteResult
from memhub.providers.heuristic import judge_item
from memhub.providers.remainder import remainder
from memhub.providers.slots import slot_keys
from memhub.providers.types import (
    Candidate,
    Extractor,
    Judge,
    JudgeItem,
    Message,
    Neighbour,
    Verdict,
)
from memhub.redact import redact
from memhub.scope import SCOPE_KEYS, Scope
from memhub.store.base import IsEmpty, Match, MatchAny, StoredPoint, Where, every
from memhub.text import content_hash, infer_epistemic, infer_polarity, refuse_nul

_NEIGHBOURS = 5
# A judge that costs nothing (the offline heuristic) sees weaker neighbours too:
# the threshold exists to save model calls, not to hide evidence.
_FREE_JUDGE_FLOOR = 0.25
# judging again after a concurrent change costs a model call: the last attempt applies
# whatever the judge said, guarded only by the targets' rev conditions
_APPLY_ATTEMPTS = 3


async def add(
    engine: Engine,
    scope: Scope,
    *,
    extractor: Extractor,
    judge: Judge,
    threshold: float,
    content: str | None = None,
    messages: list[Any] | None = None,
    metadata: dict[str, Any] | None = None,
    occurred_at: str | None = None,
    dual: bool = False,
    procedure_options: dict[str, Any] | None = None,
) -> WriteResult:
    """``procedure_options`` (``llm``, ``max_chars``) turns coding memory on; ``None`` turns it
    off.
    """
    if (content is None) == (messages is None):
        raise InvalidInputError("pass exactly one of content= or messages=")
    if not scope.user_id:
        raise InvalidInputError("user_id is required")
    turns, all_turns, calls, coding = await cpu.run(
        _input_size(content, messages),
        _prepare,
        content,
        messages,
        occurred_at,
        coding_on=bool(procedure_options),
    )
    # The lock is held for store work only, never across a model call: raw records
    # under it (so a replayed write finds them), then extraction and judging outside
    # it, then the verdicts are applied under it if the user's memory is as judged.
    async with engine.write_lock:
        stored = await _already_stored(engine, scope, turns)
        if len(stored) == len(turns):  # a retried or replayed write: nothing new to learn
            return WriteResult(
                memory_id=stored[0],
                extracted_count=0,
                commit_passed=False,
                raw_ids=[stored[i] for i in range(len(turns))],
            )
        raw = await _store_raw(engine, turns, stored, scope, metadata, occurred_at)
    fresh_turns = [
        (t, r) for i, (t, r) in enumerate(zip(turns, raw, strict=True)) if i not in stored
    ]
    read = _extractor_reads([t.content for t, _ in fresh_turns])
    msgs = [
        Message(role=t.role, content=text, id=r["id"])
        for (t, r), text in zip(fresh_turns, read, strict=True)
        if text
    ]
    if coding:  # chat extraction and procedure extraction run side by side
        candidates, found = await asyncio.gather(
            extractor.extract(msgs),
            procedure_write.extract(
                all_turns,
                calls,
                workspace_id=scope.payload().get("workspace"),
                branch=scope.payload().get("branch"),
                **(procedure_options or {}),  # set: coding needs it
            ),
        )
    else:
        candidates, found = await extractor.extract(msgs), []
    for attempt in range(1, _APPLY_ATTEMPTS + 1):
        try:
            decisions = await _reconcile(
                engine,
                scope,
                candidates,
                judge,
                threshold,
                metadata,
                occurred_at,
                said={r["id"]: r["occurred_at"] for r in raw if r.get("occurred_at")},
                recheck=attempt < _APPLY_ATTEMPTS,
            )
            break
        except (_Stale, ConflictError):
            if attempt == _APPLY_ATTEMPTS:
                raise
    async with engine.write_lock:
        proc_decisions, procedure_ids = await procedure_write.write(
            engine, scope, found, [r["id"] for r in raw], min(threshold, _FREE_JUDGE_FLOOR)
        )
        decisions += proc_decisions
        if dual:
            await mark_pending(engine, scope)
        await engine.bump()
    written = [d for d in decisions if d.memory_id]
    return WriteResult(
        memory_id=raw[0]["id"],
        extracted_count=len(candidates) + len(found),
        commit_passed=bool(written),
        decisions=decisions,
        scene="coding" if coding else "chat",
        procedure_ids=procedure_ids,
        raw_ids=[r["id"] for r in raw],
        memory_ids=[i for d in written for i in (d.memory_id, *d.kept) if i],
    )


def _prepare(
    content: str | None, messages: list[Any] | None, occurred_at: str | None, *, coding_on: bool
) -> tuple[list[Turn], list[Turn], list[Any], bool]:
    """Validated, redacted turns: (turns with text, all turns, tool calls, coding scene).

    Redaction of up to 1 MiB: called through ``cpu.run``, off the owner loop when long.
    """
    if content is not None:
        if not isinstance(content, str) or not content.strip():
            raise InvalidInputError("content must be a non-empty string")
        if len(content) > MAX_CONTENT:
            raise InvalidInputError(
                f"content is {len(content)} characters; the limit is {MAX_CONTENT}"
            )
        refuse_nul(content)
        turns = [Turn(role="user", content=redact(content.strip()).text, occurred_at=occurred_at)]
        return turns, turns, [], False
    all_turns, has_tools = normalize_messages(messages)
    turns = [t for t in all_turns if t.content]
    if not turns:
        raise InvalidInputError("messages hold no user or assistant text")
    calls = procedures.tool_calls(all_turns) if has_tools else []
    return turns, all_turns, calls, coding_on and procedures.is_coding(all_turns, calls)


def _input_size(content: Any, messages: Any) -> int:
    """About how many characters a write reads: whether its rules are worth a worker thread."""
    if isinstance(content, str):
        return len(content)
    if not isinstance(messages, list | tuple):
        return 0
    size = 0
    for m in messages:
        text = m.get("content") if isinstance(m, dict) else getattr(m, "content", None)
        # content parts, tool calls: not worth counting, treated as long
        size += len(text) if isinstance(text, str) else cpu.SMALL
    return size


# The extractor reads at most MAX_CONTENT characters of one add (the limit of one
# ``add(content=...)``): a statement worth keeping is a sentence, and a longer add is a
# document, kept whole as raw turns. Over the heuristics this bounds an add of 1 MiB
# (10 x 100,000 characters) to the rules over 32,000 characters.
_SENTENCE_ENDS = ("\n", "。", "！", "？", "；", "!", "?", ";", ". ")


def _extractor_reads(texts: list[str], budget: int = MAX_CONTENT) -> list[str]:
    """What the extractor reads of each message: all of it when the add fits the budget,
    else each message's start up to an equal share of it, cut after its last full sentence.

    Example:
        >>> _extractor_reads(["I live in Berlin. I use vim. And then", "ok"], budget=22)
        ['I live in Berlin.', 'ok']
    """
    share = _share([len(t) for t in texts], budget)
    out = []
    for text in texts:
        if len(text) <= share:
            out.append(text)
            continue
        head = text[:share]
        end = max(head.rfind(mark) + len(mark.rstrip()) for mark in _SENTENCE_ENDS)
        out.append(head[: max(end, 0)])
    return out


def _share(lengths: list[int], budget: int) -> int:
    """The largest cut ``c`` with ``sum(min(n, c) for n in lengths) <= budget``."""
    left, rest = budget, len(lengths)
    for n in sorted(lengths):
        if n * rest > left:
            return left // rest
        left -= n
        rest -= 1
    return budget


async def _already_stored(engine: Engine, scope: Scope, turns: list[Turn]) -> dict[int, str]:
    """Which turns are already stored as raw records of this scope: turn index -> record id.

    A message counts as stored when a raw record written in the same scope (user,
    app, agent, session, checkout) has its ``id`` and the same text, so a retried
    request or a replayed graph node adds nothing twice, while a reused id with new
    text (a per-conversation counter) or in another session is a new message.
    Messages without an ``id`` are always new. The lookup goes through the indexed
    ``content_hash``.
    """
    keyed = await cpu.run(sum(len(t.content) for t in turns if t.message_id), _keys, turns)
    if not keyed:
        return {}
    written_in = scope.payload()
    same_scope = [Match(k, v) if (v := written_in.get(k)) else IsEmpty(k) for k in SCOPE_KEYS]
    where = Where(
        must=(
            *same_scope,
            Match("layer", "raw"),
            MatchAny("content_hash", tuple({h for _, h in keyed.values()})),
            MatchAny("message_id", tuple({m for m, _ in keyed.values()})),
        )
    )
    # id and hash are matched as two sets, so unrelated pairs can match too: read them all
    found = await every(engine.store, "memories", where)
    ids = {
        (p.payload.get("message_id"), p.payload.get("content_hash")): p.payload["id"] for p in found
    }
    return {i: ids[key] for i, key in keyed.items() if key in ids}


def _keys(turns: list[Turn]) -> dict[int, tuple[str, str]]:
    """Turn index -> (message id, content hash) of the turns with an id."""
    return {i: (t.message_id, content_hash(t.content)) for i, t in enumerate(turns) if t.message_id}


async def _store_raw(
    engine: Engine,
    turns: list[Turn],
    stored: dict[int, str],
    scope: Scope,
    metadata: dict[str, Any] | None,
    occurred_at: str | None,
) -> list[Memory]:
    """A raw record for each turn not ``stored`` yet; returns each turn's record (``{"id"}``
    only for a stored one). A turn is indexed with the turn before it in ``turns``."""
    fresh = [t for i, t in enumerate(turns) if i not in stored]
    new = await cpu.run(
        sum(len(t.content) for t in fresh), _raw_records, fresh, scope, metadata, occurred_at
    )
    made = iter(new)
    raw: list[Memory] = []
    for i in range(len(turns)):
        record = Memory(id=stored[i]) if i in stored else next(made)
        if i and i not in stored:
            record["context_id"] = raw[i - 1]["id"]
        raw.append(record)
    # Raw turns only: the vectors of extracted memories are also the judge's similarity
    # space (neighbours, duplicates), which a date or a context would shift.
    texts, vectors = await conversation.index(
        engine, new, await conversation.context_of(engine, new), shorten=_embedded
    )
    await engine.insert(new, texts, vectors)
    return raw


# A raw turn's epistemic level and polarity are read from its start: one regex call over
# all of a long turn holds the GIL for its whole length (86 ms on 100,000 characters),
# and a cue deep inside a document says little about the turn.
_LEVEL_READ = 4_000


def _raw_records(
    turns: list[Turn], scope: Scope, metadata: dict[str, Any] | None, occurred_at: str | None
) -> list[Memory]:
    """The raw records of ``turns`` (rules over all of their text)."""
    return [
        new_payload(
            new_id(),
            t.content,
            epistemic=infer_epistemic(t.content[:_LEVEL_READ]),
            polarity=infer_polarity(t.content[:_LEVEL_READ]),
            layer="raw",
            scope=scope,
            source="user" if t.role == "user" else "agent",
            metadata=metadata,
            role=t.role,
            message_id=t.message_id,
            speaker=t.name,
            occurred_at=t.occurred_at or occurred_at,
        )
        for t in turns
    ]


# e5 reads up to 512 tokens of a text, 0.6-1 s of CPU on a 2-core machine: the ten
# 100,000-character messages of a 1 MiB add spent 4-10 s in embedding alone, and still
# 1.6 s of CPU (3-5 s under load) when each got 128 tokens. So the long turns of one add
# share one e5 window: however many there are, an add embeds no more than one long turn
# on its own would (down to _MIN_TOKENS each, past 16 long turns), while BM25 still
# indexes every character. A chat turn (up to _TURN_TOKENS) is always embedded whole.
_TURN_TOKENS = 128
_MAX_TOKENS = 512  # e5's window
_MIN_TOKENS = 32  # a sentence or two; a shorter start says little about a document


def _tokens(text: str) -> float:
    """An upper estimate of e5's tokens: one per non-ASCII character or space, one per 3
    other characters (a space before Chinese is a token of its own: "把 把" is 3)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    spaces = text.count(" ") + text.count("\n")
    return (ascii_chars - spaces) / 3 + spaces + (len(text) - ascii_chars)


def _embedded(texts: list[str]) -> list[str]:
    """What each raw turn's vector is made from: a chat turn whole, a long turn its start."""
    long = [_tokens(t[: 4 * _TURN_TOKENS]) > _TURN_TOKENS for t in texts]
    if sum(long) <= 1:  # the embedder's own cut: one window
        return texts
    share = max(_MAX_TOKENS // sum(long), _MIN_TOKENS)
    out = []
    for text, cut in zip(texts, long, strict=True):
        if not cut:
            out.append(text)
            continue
        head = text[: 3 * share]
        tokens = _tokens(head)
        out.append(head if tokens <= share else head[: int(len(head) * share / tokens)])
    return out


async def _neighbours(
    engine: Engine, scope: Scope, candidates: list[Candidate], slots: list[list[str]], floor: float
) -> tuple[list[list[Neighbour]], list[list[float]]]:
    """The user's current memories each candidate is judged against, best first.

    Two ways in: the nearest by embedding at or above ``floor``, and every memory
    that fills one of the candidate's exclusive slots (``memhub.providers.slots``),
    however it was worded and whichever session said it. A same-slot memory is shown
    to the judge at least at ``floor``: the threshold saves model calls on unrelated
    memories, and a memory holding the same attribute is never unrelated.
    """
    where = reconciling(scope, CHAT_LAYERS)
    out = []
    # passage-to-passage: a candidate is compared with memories as what it will become
    vectors = await engine.embedder.embed_passages([c.text for c in candidates])
    for cand, cand_slots, vector in zip(candidates, slots, vectors, strict=True):
        near: dict[str, Neighbour] = {}
        same_text = content_hash(cand.text)
        for h in await engine.store.dense_query(vector, where, limit=_NEIGHBOURS):
            score = relation_score(engine, h.score)
            found = as_memory(h.point.payload)
            if found.get("content_hash") == same_text:
                score = 1.0
            if score >= floor:
                near[found["id"]] = _neighbour(found, score)
        if cand_slots:
            same_slot, _ = await engine.store.scroll(
                "memories", where.and_(MatchAny("slots", tuple(cand_slots))), limit=_NEIGHBOURS
            )
            for p in map(as_memory, (point.payload for point in same_slot)):
                if p["id"] not in near:
                    near[p["id"]] = _neighbour(p, floor)
        out.append(sorted(near.values(), key=lambda n: -n.score))
    return out, vectors


def _neighbour(payload: Memory, score: float) -> Neighbour:
    return Neighbour(
        id=payload["id"], content=payload["content"], score=round(score, 4), layer=payload["layer"]
    )


# A later candidate that changes what an earlier one of the same write said wins over these.
_LATER_WINS = ("ADD", "SUPPLEMENT", "NEED_CONTEXT", "NOOP")


class _Stale(Exception):
    """The user's memory changed while the judge was deciding: read and judge again."""


async def _reconcile(
    engine: Engine,
    scope: Scope,
    candidates: list[Candidate],
    judge: Judge,
    threshold: float,
    metadata: dict[str, Any] | None,
    occurred_at: str | None,
    *,
    said: dict[str, str] | None = None,
    recheck: bool = False,
) -> list[Decision]:
    """Neighbours and verdicts outside the write lock, then applied under it.

    ``said``: when each raw turn was said, by id. A candidate's time is its first source
    turn's (else ``occurred_at``), read by ``valid_time`` for the time its words name.

    With ``recheck``, ``_Stale`` is raised instead of applying when another write
    changed the user's memories since the neighbours were read; conditional updates
    (``rev``) raise ``ConflictError`` for a change from another process.
    """
    seen = engine.changes(scope)
    size = sum(len(c.text) for c in candidates)
    candidates, slots = await cpu.run(size, _typed, candidates)
    free = judge.free
    floor = min(threshold, _FREE_JUDGE_FLOOR) if free else threshold
    neighbours, vectors = (
        await _neighbours(engine, scope, candidates, slots, floor) if candidates else ([], [])
    )
    to_judge = [i for i, n in enumerate(neighbours) if n]
    verdicts: dict[int, Verdict] = {i: Verdict(action="ADD") for i in range(len(candidates))}
    if to_judge:  # all candidates of one write in one judge call
        judged = await judge.judge(
            [JudgeItem(candidate=candidates[i], neighbours=neighbours[i]) for i in to_judge]
        )
        if len(judged) != len(to_judge):
            raise InvalidInputError(
                f"the judge returned {len(judged)} verdicts for {len(to_judge)} candidates"
            )
        verdicts.update(zip(to_judge, judged, strict=True))
    restated = await cpu.run(size, _restated, candidates, slots)
    decisions: list[Decision] = []
    written: dict[int, str | None] = {}
    batch = _Batch()
    async with engine.write_lock:
        if recheck and engine.changes(scope) != seen:
            raise _Stale
        for i, cand in enumerate(candidates):
            verdict = verdicts[i]
            known = {n.id for n in neighbours[i]}
            targets = [
                t for t in verdict.targets if t in known
            ]  # a judge cannot point outside what it was shown
            earlier = restated.get(i)
            earlier_id = written.get(earlier[0]) if earlier else None
            # NOOP too: "I left Acme, now I'm at Globex" after "I work at Acme" in the same
            # write restates a memory that the earlier candidate has just superseded
            if earlier and earlier_id and verdict.action in _LATER_WINS:
                verdict = earlier[1]
                targets = [earlier_id]
            memory_id, kept = await _apply(
                engine,
                batch,
                scope,
                cand,
                slots[i],
                vectors[i],
                verdict.action,
                targets,
                metadata,
                _said_when(cand, said or {}, occurred_at),
            )
            written[i] = memory_id
            decisions.append(
                Decision(
                    action=verdict.action,
                    update_type=verdict.update_type,
                    targets=targets,
                    candidate=cand.text,
                    memory_id=memory_id,
                    kept=kept,
                    **(
                        await _restated_level(engine, cand, targets)
                        if verdict.action == "NOOP"
                        else {}
                    ),
                )
            )
        await batch.flush(engine)
    return decisions


def _said_when(cand: Candidate, said: dict[str, str], default: str | None) -> str | None:
    """When ``cand`` was said: the time of the first of its source turns that has one."""
    return next((said[s] for s in cand.source_ids if s in said), default)


@dataclass
class _Batch:
    """The new memories of one write and their audit steps: one upsert each, not two per memory.

    Flushed before anything reads the store for them (an OVERRIDE of an earlier candidate of
    the same write) and at the end of the write; memories first, as one at a time did.
    """

    payloads: list[Memory] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    vectors: list[list[float]] = field(default_factory=list)
    events: list[StoredPoint] = field(default_factory=list)

    async def flush(self, engine: Engine) -> None:
        if self.payloads:
            await engine.insert(self.payloads, self.texts, self.vectors)
        if self.events:
            await engine.store.upsert("events", self.events)
        self.payloads, self.texts, self.vectors, self.events = [], [], [], []


def _typed(candidates: list[Candidate]) -> tuple[list[Candidate], list[list[str]]]:
    """Candidates redacted, and the slots of each: typed once, looked up, compared, stored."""
    kept = [
        c.model_copy(update={"text": redact(c.text).text}) for c in candidates if c.text.strip()
    ]
    return kept, [slot_keys(c.text) for c in kept]


async def _restated_level(engine: Engine, cand: Candidate, targets: list[str]) -> dict[str, str]:
    """For a NOOP: the stored memory said again at another epistemic level ("听说 API 网关用
    Kong" after "API 网关用 Kong") is reported as a correction candidate, as ``memorize``
    reports it: nothing is applied on its own."""
    if not targets:
        return {}
    stored = await engine.get_many(targets[:1])
    if not stored or "epistemic" not in stored[0]:
        return {}
    return epistemic_candidate(stored[0], infer_epistemic(cand.text))


def _restated(
    candidates: list[Candidate], slots: list[list[str]]
) -> dict[int, tuple[int, Verdict]]:
    """Candidates of one write that change a slot an earlier candidate of the same write filled.

    "I live in Berlin. Actually, I live in Paris.": the judge compares each candidate with
    stored memories only, so both would be current. The later statement wins: it becomes a
    new version of the earlier one (decided by the offline judge, no model call). Returns
    later index -> (earlier index, the OVERRIDE verdict).
    """
    out: dict[int, tuple[int, Verdict]] = {}
    for j in range(1, len(candidates)):
        earlier = [i for i in range(j) if set(slots[i]) & set(slots[j])]
        if not earlier:
            continue
        shown = [
            Neighbour(id=str(i), content=candidates[i].text, score=1.0, layer=candidates[i].layer)
            for i in reversed(earlier)
        ]
        verdict = judge_item(JudgeItem(candidate=candidates[j], neighbours=shown))
        if verdict.action == "OVERRIDE" and verdict.targets:
            out[j] = (int(verdict.targets[0]), verdict.model_copy(update={"targets": []}))
    return out


async def _apply(
    engine: Engine,
    batch: _Batch,
    scope: Scope,
    cand: Candidate,
    slots: list[str],
    vector: list[float],
    action: str,
    targets: list[str],
    metadata: dict[str, Any] | None,
    occurred_at: str | None,
) -> tuple[str | None, list[str]]:
    """Write what the verdict says; the id of the memory written, and of any part of a
    superseded memory kept as a memory of its own (``_keep_rest``)."""
    extra: dict[str, Any] = {
        "evidence": cand.source_ids or None,
        "proactive": cand.proactive or None,
        "occurred_at": occurred_at,
        "slots": slots or None,
        "session_id": scope.session_id,  # a new version is provenance of the write that made it
    }
    if action in ("NOOP", "INVALID", "RAW_ONLY"):
        return None, []
    if action == "OVERRIDE" and targets:
        await batch.flush(engine)  # the target may be a memory of this very write
        old = await engine.get(targets[0], scope.tenant)
        if old.get("status") == "active":
            new = await replace_version(
                engine,
                old,
                cand.text,
                "superseded by a newer statement",
                action="override",
                layer=cand.layer,
                extra=extra,
                vector=vector,
                metadata=metadata,
            )
            superseded = [old]
            for other in await engine.get_many(
                targets[1:]
            ):  # the same attribute stated twice before
                if other["status"] == "active":
                    superseded.append(other)
                    await engine.update(other, superseded_by(other, new))
                    await engine.log(
                        other["id"],
                        "status",
                        "override",
                        tenant=scope.tenant,
                        before="active",
                        after="superseded",
                        reason="superseded by a newer statement",
                        related=new["id"],
                    )
            kept = [await _keep_rest(engine, batch, scope, was, cand.text) for was in superseded]
            return new["id"], [k for k in kept if k]
    payload = new_payload(
        new_id(),
        cand.text,
        layer=cand.layer,
        scope=scope,
        source="user",
        metadata=metadata,
        related=targets or None,
        **extra,
    )
    batch.payloads.append(payload)
    batch.texts.append(cand.text)
    batch.vectors.append(vector)
    batch.events.append(
        engine.event(payload["id"], "status", action.lower(), tenant=scope.tenant, after="active")
    )
    return payload["id"], []


async def _keep_rest(
    engine: Engine, batch: _Batch, scope: Scope, old: Memory, statement: str
) -> str | None:
    """What ``old`` said that ``statement``, which superseded it, leaves standing, as a memory
    of its own ("我们项目用 Vue 3，后端是 Go" → "我们项目后端是 Go"); ``None`` when nothing is left.

    It keeps the superseded memory's evidence, time and certainty: the user said it then."""
    rest = remainder(old["content"], statement)
    if not rest:
        return None
    [vector] = await engine.embedder.embed_passages([rest])
    payload = new_payload(
        new_id(),
        rest,
        layer=old["layer"],
        scope=scope,
        source=old.get("source", "user"),
        epistemic=old.get("epistemic"),
        metadata=old.get("metadata") or None,
        evidence=old.get("evidence") or None,
        occurred_at=old.get("occurred_at"),
        session_id=old.get("session_id"),
        slots=slot_keys(rest) or None,
        related=[old["id"]],
        kept_from=old["id"],
    )
    batch.payloads.append(payload)
    batch.texts.append(rest)
    batch.vectors.append(vector)
    batch.events.append(
        engine.event(
            payload["id"],
            "status",
            "add",
            tenant=scope.tenant,
            after="active",
            reason=f"kept from {old['id']}: the newer statement that superseded it left this "
            "part standing",
            related=old["id"],
        )
    )
    return payload["id"]
