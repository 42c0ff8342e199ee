"""Who is looking: the inspector's sign-in, its session cookie and the CSRF token.

The page signs in with what the REST API takes (an API key on ``serve-api``, the
hub's token on ``memhub serve``), checked by the same ``Authenticator``; the key is
never stored, only the tenant it picked. A session is a random id in an HttpOnly,
SameSite=Strict cookie, kept in this process's memory: a restart signs everyone out.
Each session has its own CSRF token, which every POST form carries.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from fastapi import Request

from memhub_server.auth import Authenticator

COOKIE = "memhub_ui"
LANG_COOKIE = "memhub_lang"
PATH = "/ui"
MAX_AGE = 12 * 3600
MAX_SESSIONS = 1_000


class SignInRequired(Exception):
    """No session: the browser is sent to the sign-in page."""


class StaleForm(Exception):
    """A POST without the session's CSRF token."""


@dataclass
class Session:
    tenant: str
    admin: bool = False
    """Signed in with an operator's key: may purge the shared store."""
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    started: float = field(default_factory=time.monotonic)


class Sessions:
    """Signed-in browsers of one app: session id -> tenant (the oldest go past ``MAX_SESSIONS``)."""

    def __init__(self, auth: Authenticator) -> None:
        self.auth = auth
        self._by_id: OrderedDict[str, Session] = OrderedDict()

    def sign_in(self, key: str) -> tuple[str, Session] | None:
        """A new session for ``key``'s tenant, or ``None`` for an unknown key."""
        tenant = self.auth.tenant_for(key) if key else None
        if tenant is None:
            return None
        sid = secrets.token_urlsafe(32)
        self._by_id[sid] = session = Session(tenant, admin=self.auth.is_admin(key))
        while len(self._by_id) > MAX_SESSIONS:
            self._by_id.popitem(last=False)
        return sid, session

    def get(self, sid: str | None) -> Session | None:
        session = self._by_id.get(sid or "")
        if session is not None and time.monotonic() - session.started > MAX_AGE:
            del self._by_id[sid or ""]
            return None
        return session

    def sign_out(self, sid: str | None) -> None:
        self._by_id.pop(sid or "", None)


def current(request: Request) -> Session:
    """The request's session; a browser without one is sent to the sign-in page."""
    session = request.app.state.ui_sessions.get(request.cookies.get(COOKIE))
    if session is None:
        raise SignInRequired
    return session


def check_csrf(request: Request, session: Session, token: str | None) -> None:
    """A POST must come from this site (``same_origin``) and carry the session's token (a
    form on another site cannot know it): either alone is one check a browser bug or a
    leaked page could get past."""
    if not same_origin(request) or not token or not hmac.compare_digest(token, session.csrf):
        raise StaleForm("the form is stale or came from another site: reload the page")


def same_origin(request: Request) -> bool:
    """A browser's POST names the page it came from; one from another site is refused."""
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1] == host
