"""The inspector's actions: review what will happen, confirm, then the same client call as the SDK.

Both steps are POSTs carrying the session's CSRF token; nothing changes before the
confirmation. The result page shows the call's answer as the SDK returns it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from memhub import InvalidInputError, MemHubError
from memhub.engine.read import browse
from memhub.models import Atom
from memhub_server.errors import status_of
from memhub_server.ui.render import atom_scope, page
from memhub_server.ui.session import Session, check_csrf, current

router = APIRouter(include_in_schema=False)

CORRECT = ("replace", "negate", "confirm_actual", "confirm_necessary", "demote")
GOVERN = ("quarantine", "release", "seal", "tombstone", "derive_lesson")
ON_A_MEMORY = (*CORRECT, *GOVERN, "update", "delete")
ACTIONS = (*ON_A_MEMORY, "forget_user", "purge")
# What each action changes, said on the confirmation page.
EFFECTS = {
    "replace": "writes a new version; this one becomes superseded",
    "negate": "marks it as false: gone from search, kept in history",
    "confirm_actual": "raises it to actual",
    "confirm_necessary": "raises it to necessary (a hard constraint)",
    "demote": "lowers it to possible",
    "quarantine": "hides it from every read until released",
    "release": "makes a quarantined memory visible again",
    "seal": "erases its text and vectors, and those of its lineage; history keeps a placeholder",
    "tombstone": "erases everything but its id and times, and its lineage's",
    "derive_lesson": "stores the lesson, then seals this memory",
    "update": "writes a new version with the new content",
    "delete": "archives it: gone from search, kept in history",
    "forget_user": "tombstones every memory of this user in the tenant",
    "purge": "rewrites the store so sealed and tombstoned text is gone from disk",
}


class Request_(BaseModel):
    """One action as the forms send it."""

    action: str
    atom_id: str = ""
    reason: str = ""
    text: str = ""
    user_id: str = ""
    app_id: str = ""


def _form(
    action: Annotated[str, Form(max_length=32)],
    csrf: Annotated[str, Form(max_length=128)] = "",
    atom_id: Annotated[str, Form(max_length=256)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
    text: Annotated[str, Form(max_length=32000)] = "",
    user_id: Annotated[str, Form(max_length=256)] = "",
    app_id: Annotated[str, Form(max_length=256)] = "",
) -> tuple[Request_, str]:
    fields = Request_(
        action=action,
        atom_id=atom_id.strip(),
        reason=reason,
        text=text,
        user_id=user_id.strip(),
        app_id=app_id.strip(),
    )
    return fields, csrf


Submitted = Annotated[tuple[Request_, str], Depends(_form)]
SessionDep = Annotated[Session, Depends(current)]


async def _target(request: Request, session: Session, form: Request_) -> Atom | None:
    if form.action not in ACTIONS:
        raise InvalidInputError(f"unknown action {form.action!r}")
    if form.action not in ON_A_MEMORY:
        return None
    return await browse.atom(request.app.state.service.engine, session.tenant, form.atom_id)


@router.post("/actions/review", response_class=HTMLResponse)
async def review(request: Request, session: SessionDep, submitted: Submitted) -> HTMLResponse:
    form, csrf = submitted
    check_csrf(request, session, csrf)
    try:
        atom = await _target(request, session, form)
    except MemHubError as err:
        return page(request, "error.html", session, status=status_of(err), message=str(err))
    return page(request, "confirm.html", session, form=form, atom=atom, effect=EFFECTS[form.action])


async def _run(client: Any, form: Request_, atom: Atom | None) -> BaseModel | None:
    """The client call of ``form.action``: exactly what an SDK user would call."""
    a = form.action
    if a in CORRECT:
        assert atom is not None
        new = form.text if a == "replace" else None
        return await client.correct(atom.atom_id, a, form.reason, new, **atom_scope(atom))
    if a in GOVERN:
        assert atom is not None
        lesson = form.text if a == "derive_lesson" else None
        return await client.govern(atom.atom_id, a, form.reason, lesson, **atom_scope(atom))
    if a == "update":
        assert atom is not None
        new_id = await client.update(atom.atom_id, form.text, user_id=atom.scope.get("user_id"))
        return _Updated(id=new_id, replaces=atom.atom_id)
    if a == "delete":
        assert atom is not None
        await client.delete(atom.atom_id, user_id=atom.scope.get("user_id"))
        return None
    if a == "forget_user":
        return await client.forget_user(form.user_id, app_id=form.app_id or None)
    await client.purge()
    return None


class _Updated(BaseModel):
    id: str
    replaces: str


@router.post("/actions/apply", response_class=HTMLResponse)
async def apply(request: Request, session: SessionDep, submitted: Submitted) -> HTMLResponse:
    form, csrf = submitted
    check_csrf(request, session, csrf)
    try:
        if form.action == "purge" and not session.admin:
            raise InvalidInputError(
                "purge rewrites the whole shared store: sign in with an operator's key "
                "(memhub keys create --admin)"
            )
        atom = await _target(request, session, form)
        client = await request.app.state.service.client(session.tenant)
        result = await _run(client, form, atom)
    except MemHubError as err:
        return page(
            request,
            "result.html",
            session,
            status=status_of(err),
            form=form,
            error=str(err),
            result=None,
            follow=form.atom_id or None,
        )
    answer = result.model_dump(mode="json", by_alias=True) if result is not None else {}
    follow = answer.get("new_atom_id") or answer.get("id") or (form.atom_id or None)
    return page(
        request, "result.html", session, form=form, error=None, result=answer, follow=follow
    )
