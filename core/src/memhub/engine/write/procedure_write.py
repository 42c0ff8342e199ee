"""Writing procedures: extraction (heuristic or LLM), judging inside the version
boundary, storage.
"""

from __future__ import annotations

from typing import Any

from memhub.engine.core import Engine
from memhub.engine.filters import reconciling
from memhub.engine.hmg import replace_version
from memhub.engine.payload import Memory, as_memory
from memhub.engine.procedures import (
    content_of,
    files_of,
    heuristic_procedure,
    judge_procedure,
    vector_text,
)
from memhub.engine.records import new_payload
from memhub.engine.write.relation import relation_score
from memhub.ids import new_id
from memhub.messages import Turn
from memhub.models import Decision, Procedure
from memhub.providers.llm import LLM
from memhub.redact import redact
from memhub.scope import ANY, Scope
from memhub.store.base import IsEmpty, Match, Where


def boundary(scope: Scope, p: Procedure) -> Where:
    """Procedures that can be versions of ``p``: same user/app, workspace, branch, boundary_scope
    (and session, when strict)."""
    base = reconciling(scope.with_(workspace=ANY, repository=ANY, branch=ANY), ("procedure",))
    conds: list[Match | IsEmpty] = [Match("boundary_scope", p.boundary_scope)]
    for key, value in (("workspace", p.workspace_id), ("branch", p.branch)):
        conds.append(Match(key, value) if value else IsEmpty(key))
    if p.boundary_scope == "strict":
        conds.append(
            Match("session_id", scope.session_id) if scope.session_id else IsEmpty("session_id")
        )
    return base.and_(*conds)


def _redacted(p: Procedure) -> Procedure:
    """Every text field through redaction: a model may echo a secret, and files, commands and
    keys come from tool-call arguments."""

    def clean(items: list[str]) -> list[str]:
        return [redact(item).text for item in items]

    update = {
        "task": redact(p.task).text,
        "solution": redact(p.solution).text,
        "search_keys": clean(p.search_keys),
        "files": clean(p.files),
    }
    return p.model_copy(update=update)


async def extract(
    turns: list[Turn],
    calls: list[tuple[str, dict[str, Any]]],
    *,
    llm: LLM | None,
    max_chars: int,
    workspace_id: str | None,
    branch: str | None,
) -> list[Procedure]:
    if llm is not None:
        from memhub.providers.llm_roles import LLMProcedureExtractor

        found = await LLMProcedureExtractor(llm, max_chars=max_chars).extract(turns)
        files = files_of(calls)  # structured, from the calls: never left to the model
        return [
            p.model_copy(update={"files": files, "workspace_id": workspace_id, "branch": branch})
            for p in found
        ]
    p = heuristic_procedure(
        turns, calls, max_chars=max_chars, workspace_id=workspace_id, branch=branch
    )
    return [p] if p else []


async def write(
    engine: Engine,
    scope: Scope,
    procedures: list[Procedure],
    evidence: list[str],
    relation_floor: float,
) -> tuple[list[Decision], list[str]]:
    decisions: list[Decision] = []
    ids: list[str] = []
    procedures = [_redacted(p) for p in procedures]
    texts = [vector_text(p) for p in procedures]
    vectors = await engine.embedder.embed_passages(texts) if texts else []
    for p, text, vector in zip(procedures, texts, vectors, strict=True):
        hits = await engine.store.dense_query(vector, boundary(scope, p), limit=3)
        action: str = "ADD"
        update_type: str | None = None
        target: Memory | None = None
        for hit in hits:
            score = relation_score(engine, hit.score)
            if score < relation_floor:
                break
            found = as_memory(hit.point.payload)
            verdict, kind = judge_procedure(p, Procedure(**found["procedure"]), score)
            if verdict != "ADD":
                action, update_type, target = verdict, kind, found
                break
        extra: dict[str, Any] = {
            "procedure": p.model_dump(),
            "boundary_scope": p.boundary_scope,
            "evidence": evidence or None,
            "kind": "procedure",
        }
        memory_id = None
        if action == "OVERRIDE" and target is not None:
            new = await replace_version(
                engine,
                target,
                content_of(p),
                "a new solution to the same problem",
                action="override",
                extra=extra,
                vector=vector,
                vector_text=text,
            )
            memory_id = new["id"]
        elif action != "NOOP":
            s = scope.with_(workspace=p.workspace_id, branch=p.branch)
            payload = new_payload(
                new_id(),
                content_of(p),
                layer="procedure",
                scope=s,
                source="agent",
                related=[target["id"]] if target else None,
                **extra,
            )
            await engine.insert([payload], [text], [vector])
            await engine.log(
                payload["id"], "status", "procedure", tenant=scope.tenant, after="active"
            )
            memory_id = payload["id"]
        if memory_id:
            ids.append(memory_id)
        decisions.append(
            Decision(
                action=action,
                update_type=update_type,
                targets=[target["id"]] if target else [],
                candidate=p.task,
                memory_id=memory_id,
            )
        )
    return decisions, ids
