"""The inspector's pages: overview, memories, search, a memory's history, coding memory.

Every read goes through the client of the signed-in tenant (``search``, ``recall``,
``history``, ``session_context``, ``correct``, ``govern``, ...); the whole-tenant listings the
client has no call for come from ``memhub.engine.read.browse``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from memhub import MemHubError
from memhub.engine.read import browse
from memhub.retrieval.formatter import format_memories
from memhub.scope import ANY
from memhub_server.ui import i18n
from memhub_server.ui.render import EXPOSURES, LAYERS, STATUSES, atom_scope, filters_of, page
from memhub_server.ui.session import (
    COOKIE,
    LANG_COOKIE,
    MAX_AGE,
    PATH,
    Session,
    check_csrf,
    current,
    same_origin,
)

router = APIRouter(include_in_schema=False)
SessionDep = Annotated[Session, Depends(current)]
TOP = 20  # users, apps and repositories shown on the overview
# A per-layer count over most of a 100k store costs 0.1-0.3 s (a user's: ~2 ms), so a
# value holding more memories than this shows its total only.
LAYERED_MAX = 20_000
FRESH_S = 10.0  # overview counts are recounted after a write, at most this often


def _service(request: Request) -> Any:
    return request.app.state.service


async def _client(request: Request, session: Session) -> Any:
    return await _service(request).client(session.tenant)


# -- sign-in and language ------------------------------------------------------------


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request) -> HTMLResponse:
    return page(
        request, "login.html", None, error=None, token_login=request.app.state.ui_token_login
    )


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request, key: Annotated[str, Form(max_length=512)] = "") -> Any:
    signed = same_origin(request) and request.app.state.ui_sessions.sign_in(key.strip())
    if not signed:
        return page(
            request,
            "login.html",
            None,
            status=401,
            error="Unknown API key.",
            token_login=request.app.state.ui_token_login,
        )
    return _signed_in(*signed)


def _signed_in(sid: str, _session: Session) -> RedirectResponse:
    response = RedirectResponse(f"{PATH}/", status_code=303)
    response.set_cookie(COOKIE, sid, max_age=MAX_AGE, path=PATH, httponly=True, samesite="strict")
    return response


@router.post("/logout")
async def logout(request: Request, session: SessionDep, csrf: Annotated[str, Form()] = "") -> Any:
    check_csrf(request, session, csrf)
    request.app.state.ui_sessions.sign_out(request.cookies.get(COOKIE))
    response = RedirectResponse(f"{PATH}/login", status_code=303)
    response.delete_cookie(COOKIE, path=PATH)
    return response


@router.get("/lang/{lang}")
async def switch_language(lang: str, next: str = f"{PATH}/") -> RedirectResponse:
    target = next if next.startswith(f"{PATH}/") and "//" not in next else f"{PATH}/"
    response = RedirectResponse(target, status_code=303)
    if lang in i18n.LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, path=PATH, samesite="lax")
    return response


# -- overview ----------------------------------------------------------------------------


def _store_size(settings: Any) -> int | None:
    if settings.qdrant_url:
        return None
    total = 0
    for folder, _, files in os.walk(Path(settings.storage_dir)):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(folder, name)).st_blocks * 512
    return total


async def _overview(request: Request, tenant: str) -> dict[str, Any]:
    """Counts by user (per layer), app and repository, cached until the next write (the
    snapshot counter), and for ``FRESH_S`` at least: an agent writing all the time does not
    make every visit recount. Every count shown is exact; the facets only find the values.
    """
    svc = _service(request)
    engine = svc.engine
    cache: dict = request.app.state.ui_overview
    snapshot = engine.snapshot_version
    hit = cache.get(tenant)
    if hit and (hit[0] == snapshot or time.monotonic() - hit[1]["at"] < FRESH_S):
        return hit[1]
    groups: dict[str, list[dict[str, Any]]] = {}
    for key in ("user_id", "app_id", "repository"):
        rows = []
        for value, _ in await browse.facet(engine, tenant, key, limit=TOP):
            total = await browse.count(engine, tenant, {key: value})
            layers = None
            if total <= LAYERED_MAX:
                layers = await browse.counts_by(engine, tenant, key, value, "layer", LAYERS)
            rows.append({"value": value, "total": total, "layers": layers})
        groups[key] = sorted(rows, key=lambda r: (-r["total"], r["value"]))
    data = {
        "at": time.monotonic(),
        "counted": datetime.now(UTC).strftime("%H:%M:%S UTC"),
        "atoms": await browse.count(engine, tenant),
        "snapshot": snapshot,
        "groups": groups,
        "activity": await browse.activity(engine, tenant),
        "size": await asyncio.to_thread(_store_size, svc.settings),
    }
    cache[tenant] = (snapshot, data)
    return data


def _chart(activity: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Stacked bars per day, by action (the most frequent actions get their own colour)."""
    totals: dict[str, int] = {}
    for per_action in activity.values():
        for action, n in per_action.items():
            totals[action] = totals.get(action, 0) + n
    actions = sorted(totals, key=lambda a: (-totals[a], a))[:8]
    top = max([sum(d.values()) for d in activity.values()] + [1])
    bars = []
    for i, (day, counts) in enumerate(activity.items()):
        y: float = 120
        parts = []
        for j, action in enumerate(actions):
            h = round(counts.get(action, 0) / top * 110, 1)
            if h:
                y -= h
                parts.append(
                    {
                        "y": round(y, 1),
                        "h": h,
                        "colour": j,
                        "label": f"{day} {action}: {counts[action]}",
                    }
                )
        bars.append(
            {"x": 8 + i * 22, "day": day[5:], "parts": parts, "total": sum(counts.values())}
        )
    return {"bars": bars, "legend": [(a, j, totals[a]) for j, a in enumerate(actions)], "top": top}


@router.get("/", response_class=HTMLResponse)
async def overview(request: Request, token: str | None = None) -> Any:
    if token is not None and request.app.state.ui_token_login:
        signed = request.app.state.ui_sessions.sign_in(token)
        if signed:
            return _signed_in(*signed)  # the token leaves the address bar at once
    session = current(request)
    data = await _overview(request, session.tenant)
    recent = await browse.page(_service(request).engine, session.tenant, limit=10)
    return page(
        request,
        "overview.html",
        session,
        layers=LAYERS,
        recent=recent.atoms,
        chart=_chart(data["activity"]),
        service_counters=request.app.state.metrics.overview(session.tenant),
        **data,
    )


# -- memories ---------------------------------------------------------------------------


@router.get("/memories", response_class=HTMLResponse)
async def memories(
    request: Request, session: SessionDep, cursor: str | None = None, limit: int = 50
) -> HTMLResponse:
    filters = filters_of(request.query_params)
    error = None
    try:
        listed = await browse.page(
            _service(request).engine,
            session.tenant,
            filters,
            limit=max(1, min(limit, browse.MAX_PAGE)),
            cursor=cursor,
        )
    except MemHubError as err:
        listed, error = browse.Page(atoms=[]), str(err)
    query = urlencode(filters)  # a value may hold "&", "#" or "=": the links keep it whole
    return page(
        request,
        "memories.html",
        session,
        atoms=listed.atoms,
        next_cursor=listed.next_cursor,
        filters=filters,
        query=query,
        error=error,
        layers=LAYERS,
        statuses=STATUSES,
        exposures=EXPOSURES,
        keys=browse.FILTER_KEYS,
    )


# -- search ------------------------------------------------------------------------------


@router.get("/search", response_class=HTMLResponse)
async def search(
    request: Request,
    session: SessionDep,
    q: str = "",
    user_id: str = "",
    limit: int = 10,
    as_of: str = "",
) -> HTMLResponse:
    """The three searches side by side; ``as_of`` (a date) reads each as of that day."""
    q, user_id, limit = q.strip()[:2000], user_id.strip()[:256], max(1, min(limit, 50))
    as_of = as_of.strip()[:40]
    when = as_of or None
    results: dict[str, Any] = {}
    errors: dict[str, str] = {}
    if q:
        client = await _client(request, session)
        calls = {
            "recall": lambda: client.recall(
                q,
                limit=limit,
                as_of=when,
                user_id=user_id or None,
                repository=ANY,
                branch=ANY,
                workspace=ANY,
            ),
        }
        if user_id:
            calls["search"] = lambda: client.search(
                q,
                user_id=user_id,
                app_ids=[ANY],
                limit=limit,
                procedure_limit=3,
                derived_context_limit=3,
                as_of=when,
            )
            calls["conversation"] = lambda: client.search_conversation(
                q, user_id=user_id, app_ids=[ANY], limit=limit, as_of=when
            )
        for name, call in calls.items():
            try:
                results[name] = await call()
            except MemHubError as err:
                errors[name] = str(err)
    given = format_memories(results["search"].memories.to_dict()) if "search" in results else ""
    return page(
        request,
        "search.html",
        session,
        q=q,
        user_id=user_id,
        as_of=as_of,
        results=results,
        errors=errors,
        given=given,
    )


# -- one memory ---------------------------------------------------------------------------


@router.get("/memory/{atom_id}", response_class=HTMLResponse)
async def history(request: Request, atom_id: str, session: SessionDep) -> HTMLResponse:
    """One memory: its state, its version chain with every step of every version (newest
    first), its lessons and the raw turns it came from."""
    engine = _service(request).engine
    try:
        atom = await browse.atom(engine, session.tenant, atom_id[:256])
        client = await _client(request, session)
        trail = await client.history(atom.atom_id, **atom_scope(atom))
        chain = [
            await browse.atom(engine, session.tenant, i) for i in reversed(trail.relations.chain)
        ]
        steps = []
        for version in chain:
            own = trail if version.atom_id == atom.atom_id else None
            own = own or await client.history(version.atom_id, **atom_scope(version))
            for kind in ("status", "epistemic", "exposure"):
                steps += [(version, kind, s) for s in getattr(own, f"{kind}_history")]
        lessons = [
            await browse.atom(engine, session.tenant, i) for i in trail.relations.related_lessons
        ]
        raw = await browse.sources(engine, session.tenant, atom.atom_id)
    except MemHubError as err:
        return page(request, "error.html", session, status=404, message=str(err))
    steps.sort(key=lambda step: step[2].at, reverse=True)
    return page(
        request,
        "history.html",
        session,
        atom=atom,
        trail=trail,
        chain=chain,
        lessons=lessons,
        raw=raw,
        steps=steps,
    )


# -- coding memory ------------------------------------------------------------------------


@router.get("/coding", response_class=HTMLResponse)
async def coding(request: Request, session: SessionDep) -> HTMLResponse:
    """Procedures by workspace and branch, and the handoff the next session starts with."""
    engine = _service(request).engine
    client = await _client(request, session)
    filters = {
        k: v
        for k, v in filters_of(request.query_params).items()
        if k in ("workspace", "repository", "branch", "user_id")
    }
    query = {**filters, "layer": "procedure", "status": "active"}
    listed = await browse.page(engine, session.tenant, query, limit=50)
    groups: dict[tuple[str, str], list] = {}
    for atom in listed.atoms:
        item = None
        if atom.exposure_state == "visible":
            try:
                item = await client.get(atom.atom_id, user_id=atom.scope.get("user_id"))
            except MemHubError:
                item = None
        proc = item.procedure if item else None
        where = (proc.workspace_id if proc else None) or atom.scope.get("workspace") or "—"
        branch = (proc.branch if proc else None) or atom.scope.get("branch") or "—"
        groups.setdefault((where, branch), []).append((atom, item))
    context = await client.session_context(
        user_id=filters.get("user_id"),
        repository=filters.get("repository", ANY),
        branch=filters.get("branch", ANY),
        workspace=filters.get("workspace", ANY),
    )
    choices = {
        key: await browse.facet(engine, session.tenant, key, limit=50)
        for key in ("workspace", "repository")
    }
    return page(
        request,
        "coding.html",
        session,
        groups=groups,
        context=context,
        filters=filters,
        choices=choices,
    )
