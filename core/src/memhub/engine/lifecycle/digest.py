"""Dual mode (System 2): ``add`` marks its scope pending; ``digest`` derives L3 items once per
scope.

With an LLM, one call per scope turns the scope's current facts and procedures
into patterns. Offline, a pattern is a theme that recurs across at least
``MIN_SUPPORT`` memories (a term shared by them), each item citing its evidence.
Derived items are written, never returned by search unless asked for.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import defaultdict
from typing import Any

from memhub._cjk import HAN, HAN_CHAR
from memhub.engine.core import Engine
from memhub.engine.filters import visible
from memhub.engine.payload import Memory, as_memory
from memhub.engine.records import new_payload, now
from memhub.errors import ProviderError
from memhub.ids import new_id
from memhub.models import DigestResult
from memhub.providers.llm import LLM
from memhub.scope import Scope
from memhub.store.base import Match, StoredPoint, Where, every

MIN_SUPPORT = 3
SOURCE_LAYERS = ("fact", "profile", "procedure")
_WORD = re.compile(rf"[A-Za-z][A-Za-z0-9_.+#-]{{2,}}|[{HAN}]{{2,}}")
_STOP = {
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "have",
    "was",
    "are",
    "用户",
    "我们",
    "一个",
    "这个",
    "就是",
    "已经",
    "因为",
    "所以",
}
DIGEST_PROMPT = """Find durable patterns across these memories of one user (habits, recurring \
needs, stable tendencies).
Return JSON: {"derived": [{"text": str, "evidence_ids": [ids of the memories that support it]}]}.
Only patterns supported by at least two memories; write each in the memories' language."""


def _pending_id(scope: Scope) -> str:
    return str(
        uuid.uuid5(
            uuid.NAMESPACE_URL, "memhub-pending:" + json.dumps(scope.payload(), sort_keys=True)
        )
    )


async def mark_pending(engine: Engine, scope: Scope) -> None:
    payload = {"kind": "pending_scope", "scope": scope.payload(), "at": now()}
    await engine.store.upsert("meta", [StoredPoint(_pending_id(scope), payload)])


async def drop_pending(engine: Engine, tenant: str, user_id: str, app_id: str | None = None) -> int:
    """Forget the pending scopes of one user (of one app): no digest will run for them.

    The caller holds ``engine.write_lock``. Returns how many were dropped.
    """
    must = [
        Match("kind", "pending_scope"),
        Match("scope.tenant", tenant),
        Match("scope.user_id", user_id),
    ]
    if app_id is not None:
        must.append(Match("scope.app_id", app_id))
    dropped = 0
    while True:  # each page is deleted, so the next scroll starts at the front again
        page, _ = await engine.store.scroll("meta", Where(must=tuple(must)), limit=256)
        if not page:
            return dropped
        await engine.store.delete("meta", [p.id for p in page])
        dropped += len(page)


def _terms(text: str) -> set[str]:
    terms: set[str] = set()
    for word in _WORD.findall(text):
        if HAN_CHAR.match(word):  # Chinese: character bigrams stand in for words
            terms.update(word[i : i + 2] for i in range(len(word) - 1))
        else:
            terms.add(word.lower())
    return terms - _STOP


def recurring_themes(
    memories: list[Memory], min_support: int = MIN_SUPPORT
) -> list[tuple[str, list[str]]]:
    """``(term, evidence ids)`` for terms shared by ``min_support``+ memories, strongest first.

    A term is dropped when a longer term already covers the same evidence.
    """
    support: dict[str, set[str]] = defaultdict(set)
    for m in memories:
        for term in _terms(m.get("content", "")):
            support[term].add(m["id"])
    themes = sorted(
        ((t, ids) for t, ids in support.items() if len(ids) >= min_support),
        key=lambda x: (-len(x[1]), -len(x[0]), x[0]),
    )
    kept: list[tuple[str, list[str]]] = []
    for term, ids in themes:
        if not any(ids <= set(k_ids) for _, k_ids in kept):
            kept.append((term, sorted(ids)))
    return kept[:5]


def _theme_text(term: str, ids: list[str], memories: list[Memory]) -> str:
    zh = any(HAN_CHAR.search(m.get("content", "")) for m in memories)
    if zh:
        return f"反复出现的主题：「{term}」（{len(ids)} 条记忆提到）"
    return f"Recurring theme: '{term}' (mentioned in {len(ids)} memories)"


async def digest(engine: Engine, *, llm: LLM | None = None, tenant: str = "local") -> DigestResult:
    points = await every(engine.store, "meta", Where(must=(Match("kind", "pending_scope"),)))
    derived_ids: list[str] = []
    for point in points:
        scope = Scope(**point.payload["scope"])
        if scope.tenant != tenant:
            continue
        items = await _derive(engine, scope, llm)  # a model call: never under the write lock
        async with engine.write_lock:
            derived_ids += await _replace_derived(engine, scope, items)
            await engine.store.delete("meta", [point.id])
            await engine.bump()
    return DigestResult(
        processed=sum(1 for p in points if p.payload["scope"].get("tenant", "local") == tenant),
        derived_ids=derived_ids,
    )


async def _derive(engine: Engine, scope: Scope, llm: LLM | None) -> list[tuple[str, list[str]]]:
    """The scope's patterns as ``(text, evidence ids)``."""
    points = await every(engine.store, "memories", visible(scope, SOURCE_LAYERS))
    memories = [as_memory(p.payload) for p in points]
    if llm is not None:
        listing = "\n".join(f"[{m['id']}] {m['content']}" for m in memories)
        data = await llm.complete_json(DIGEST_PROMPT, listing)
        known = {m["id"] for m in memories}
        found = [
            (text, [i for i in ids if i in known]) for text, ids in _derived(data)
        ]  # only ids it was shown
        items = [(text, ids) for text, ids in found if text and ids]
    else:
        items = [(_theme_text(t, ids, memories), ids) for t, ids in recurring_themes(memories)]
    return items


def _derived(data: Any) -> list[tuple[str, list[str]]]:
    """``{"derived": [{"text": str, "evidence_ids": [str]}]}`` from the model, or
    ``ProviderError``.
    """
    derived = data.get("derived", []) if isinstance(data, dict) else None
    if not isinstance(derived, list) or not all(
        isinstance(d, dict)
        and isinstance(d.get("text", ""), str)
        and isinstance(d.get("evidence_ids", []), list)
        for d in derived
    ):
        raise ProviderError(f"the digest model returned malformed patterns: {str(data)[:200]}")
    return [(d.get("text", ""), [str(i) for i in d.get("evidence_ids", [])]) for d in derived]


async def _replace_derived(
    engine: Engine, scope: Scope, items: list[tuple[str, list[str]]]
) -> list[str]:
    for p in await every(
        engine.store, "memories", visible(scope, ("derived",))
    ):  # a digest restates the scope's patterns: earlier ones are archived
        await engine.update(as_memory(p.payload), {"status": "archived"})
    payloads = [
        new_payload(new_id(), text, layer="derived", scope=scope, source="system", evidence=ids)
        for text, ids in items
    ]
    if payloads:
        await engine.insert(payloads, [p["content"] for p in payloads])
    for payload in payloads:
        await engine.log(payload["id"], "status", "digest", tenant=scope.tenant, after="active")
    return [payload["id"] for payload in payloads]
