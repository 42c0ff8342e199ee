"""Rendering: the Jinja2 environment (autoescaped: memory text is always shown as text),
the headers every page carries, and the scope helpers the views share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse

from memhub.engine.read import browse
from memhub.models import Atom
from memhub.scope import ANY
from memhub_server.ui import i18n
from memhub_server.ui.session import Session

HERE = Path(__file__).resolve().parent
LAYERS = ("raw", "fact", "profile", "procedure", "derived", "lesson", "handoff")
STATUSES = ("active", "superseded", "negated", "archived")
EXPOSURES = ("visible", "quarantined", "sealed", "tombstoned")

_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(HERE / "templates"),
    autoescape=True,  # every page is HTML: nothing a memory says can become markup
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

# The pages load nothing but their own script and style; an injected <script> or an
# inline handler would not run even if escaping ever failed. No framing, no referrer to
# other sites.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; form-action 'self'; connect-src 'self'; base-uri 'none'; "
    "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def page(
    request: Request, name: str, session: Session | None, *, status: int = 200, **context: Any
) -> HTMLResponse:
    """Render template ``name`` in the request's language."""
    lang = i18n.pick(request)
    html = _env.get_template(name).render(
        _=i18n.translator(lang),
        lang=lang,
        session=session,
        csrf=session.csrf if session else "",
        here=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
        nav=request.url.path,
        **context,
    )
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def atom_scope(atom: Atom) -> dict[str, str]:
    """The scope keyword arguments that address ``atom`` through the client: its own user,
    app and checkout (``*`` for a key it has none of), so a by-id check accepts it."""
    scope = {k: v for k, v in atom.scope.items() if k != "tenant" and v}
    for key in ("workspace", "repository", "branch"):
        scope.setdefault(key, ANY)
    return scope


def filters_of(params: Any) -> dict[str, str]:
    """The list filters named in a query string (empty ones dropped)."""
    out = {}
    for key in browse.FILTER_KEYS:
        value = (params.get(key) or "").strip()
        if value:
            out[key] = value[:256]
    return out
