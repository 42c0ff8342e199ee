"""The memory inspector: a web page, at ``/ui``, to see, search, audit and correct what agents
remember.

Served by the process that holds the store: ``memhub serve`` (the local hub, signed
in with the token it prints), ``memhub serve-api`` (signed in with an API key, which
picks the tenant shown) and ``memhub ui`` (a hub that opens the page). Server-rendered
(Jinja2, autoescaped) with a vendored htmx: nothing to build, no Node at install time.

Example:
    >>> app = create_app(settings)   # every app built by create_app has the inspector at /ui
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from memhub_server.auth import Authenticator
from memhub_server.ui import actions, views
from memhub_server.ui.render import HERE, page
from memhub_server.ui.session import PATH, Sessions, SignInRequired, StaleForm, current

__all__ = ["PATH", "install"]


def install(app: FastAPI, auth: Authenticator, *, token_login: bool = False) -> None:
    """Mount the inspector on ``app`` at ``/ui``.

    Args:
        auth: who may sign in (the app's own key store or hub token).
        token_login: accept the key as ``/ui/?token=...`` (the local hub's printed link).
    """
    app.state.ui_sessions = Sessions(auth)
    app.state.ui_token_login = token_login
    app.state.ui_overview = {}
    app.mount(f"{PATH}/static", StaticFiles(directory=HERE / "static"), name="ui-static")
    app.include_router(views.router, prefix=PATH)
    app.include_router(actions.router, prefix=PATH)
    app.add_exception_handler(SignInRequired, _sign_in)
    app.add_exception_handler(StaleForm, _stale)


async def _sign_in(request: Request, err: Exception) -> RedirectResponse:
    return RedirectResponse(f"{PATH}/login", status_code=303)


async def _stale(request: Request, err: Exception) -> HTMLResponse:
    return page(request, "error.html", current(request), status=403, message=str(err))
