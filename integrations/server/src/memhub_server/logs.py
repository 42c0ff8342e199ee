"""Request logs: one line per request, with an id the caller can quote back to the operator.

Every request gets an id: the caller's own ``X-Request-ID`` when it sends a sane one
(``REQUEST_ID``: up to 64 letters, digits, ``.``, ``_``, ``:`` or ``-``), a new one
otherwise. The response carries it back in ``X-Request-ID``, and every log line written
while the request runs (the access line, an error of the request) holds it.

The access line says who called what and how it went, never what was said::

    {"ts": "2026-12-04T05:31:02.114Z", "level": "info", "logger": "memhub_server.access",
     "request_id": "9f1c…", "tenant": "acme", "method": "POST", "route": "/v1/memories/search",
     "status": 200, "duration_ms": 41.2}

``route`` is the route's template (``/v1/memories/{memory_id}``), not the path asked
for, so neither a user id nor a memory id from the address is written down; no body,
header, query or key ever is. ``memhub serve-api --log-format json`` writes these lines
to standard error; ``text`` (the default) writes the same fields as one readable line.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ACCESS = logging.getLogger("memhub_server.access")
HEADER = "x-request-id"
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,64}$")

request_id: ContextVar[str | None] = ContextVar("memhub_request_id", default=None)
"""The id of the request being served (``None`` outside a request)."""

LogFormat = Literal["text", "json"]

Done = Callable[[str, str, int, str, float], None]
"""``done(method, route, status, tenant, seconds)``: told when a request has been answered."""


def route_of(scope: Scope) -> str:
    """The template of the route ``scope`` asks for (``/v1/memories/{memory_id}``), or
    ``"unmatched"``: an unknown path is the caller's text, not written down as asked.

    Read from the app's OpenAPI paths (the public list of full templates; an included
    router's own route knows only its part); the inspector's pages count as ``/ui``.
    """
    app = scope.get("app")
    if app is None:
        return "unmatched"
    routes = getattr(app.state, "route_templates", None)
    if routes is None:
        routes = app.state.route_templates = _templates(app)
    method = "GET" if scope["method"] == "HEAD" else scope["method"]
    path = scope["path"]
    for regex, template, methods in routes:
        if method in methods and regex.match(path):
            return template
    if path == "/ui" or path.startswith("/ui/"):
        return "/ui"
    return "unmatched"


def _templates(app: Any) -> list[tuple[re.Pattern[str], str, set[str]]]:
    from starlette.routing import compile_path

    found = [
        (compile_path(template)[0], template, {m.upper() for m in ops})
        for template, ops in app.openapi().get("paths", {}).items()
    ]
    found.append((re.compile(r"^/metrics$"), "/metrics", {"GET"}))
    # a literal path before a template that also matches it (/search before /{memory_id})
    return sorted(found, key=lambda r: r[1].count("{"))


def tenant_of(scope: Scope) -> str:
    """The tenant the request's key resolved to (``deps.require_tenant`` notes it), or ``""``."""
    state = scope.get("state")
    tenant = state.get("tenant") if isinstance(state, dict) else None
    return tenant if isinstance(tenant, str) else ""


class RequestLog:
    """ASGI middleware: the request id (taken or made, returned in ``X-Request-ID``), one
    access line per request, and ``done(...)`` for whoever counts requests (the metrics).

    Args:
        app: the application.
        done: called once per answered request, after the access line.
    """

    def __init__(self, app: ASGIApp, done: Done | None = None) -> None:
        self.app = app
        self.done = done

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(HEADER.encode(), b"").decode("latin-1")
        rid = given if REQUEST_ID.match(given) else uuid.uuid4().hex
        token = request_id.set(rid)
        # The routing and the key check note the route and tenant here; a scope copied
        # further in (HEAD served as GET) shares this dict.
        scope.setdefault("state", {})
        status = 500
        started = time.perf_counter()

        async def tagged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [
                    (k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"
                ]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, tagged)
        finally:
            seconds = time.perf_counter() - started
            route, tenant = route_of(scope), tenant_of(scope)
            ACCESS.info(
                "%s %s %s",
                scope["method"],
                route,
                status,
                extra={
                    "fields": {
                        "tenant": tenant,
                        "method": scope["method"],
                        "route": route,
                        "status": status,
                        "duration_ms": round(seconds * 1000, 1),
                    }
                },
            )
            if self.done is not None:
                self.done(scope["method"], route, status, tenant, seconds)
            request_id.reset(token)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request id, the record's ``fields``
    (access lines) or its message (everything else)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "request_id": request_id.get(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        else:
            line["message"] = record.getMessage()
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``time level [request id] message``: the same fields as the JSON line, for a terminal."""

    def format(self, record: logging.LogRecord) -> str:
        rid = request_id.get()
        when = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        text = record.getMessage()
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            text = (
                f"{fields['method']} {fields['route']} {fields['status']} "
                f"{fields['duration_ms']}ms tenant={fields['tenant'] or '-'}"
            )
        line = f"{when} {record.levelname.lower()} [{rid or '-'}] {text}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure(fmt: LogFormat, stream: Any = None) -> logging.Handler:
    """Send the service's logs (``memhub_server``: access lines and errors) to ``stream``
    (standard error) in ``fmt``; returns the handler (remove it to undo).
    """
    if fmt not in ("text", "json"):
        raise ValueError(f"log format must be text or json, not {fmt!r}")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    logger = logging.getLogger("memhub_server")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # a root handler (uvicorn's) would print each line twice
    return handler


def unconfigure(handler: logging.Handler) -> None:
    """Undo ``configure``: the server has stopped (its stream may close after it)."""
    logger = logging.getLogger("memhub_server")
    logger.removeHandler(handler)
    if not logger.handlers:
        logger.propagate = True
