"""One JSON error shape for every failure: ``{"error": {"code": ..., "message": ...}}``.

``code`` is the ``MemHubError.code`` (``RemoteClient`` turns it back into the same
class), or an HTTP-level code (``unauthorized``, ``payload_too_large``, ...). A 500
is only for our own bugs: its message says nothing about the internals.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from memhub.errors import (
    ConflictError,
    InvalidInputError,
    InvalidTransitionError,
    MemHubError,
    NotFoundError,
    ProviderError,
    StoreLockedError,
)

log = logging.getLogger("memhub_server")

STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (InvalidInputError, 400),
    (NotFoundError, 404),
    (InvalidTransitionError, 409),
    (ConflictError, 409),
    (StoreLockedError, 503),
    (ProviderError, 502),
)

_HTTP_CODES = {
    400: "invalid_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "too_many_requests",
    503: "unavailable",
}


class ErrorItem(BaseModel):
    loc: list[str | int]
    msg: str


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: list[ErrorItem] | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail


_DESCRIPTIONS = {
    400: "invalid input (nothing was changed)",
    401: "missing or unknown API key",
    404: "no such memory for this tenant",
    409: "invalid transition, or a concurrent change (retry)",
    413: "request too large: its body, or the messages of one add (nothing was changed)",
    422: "request does not match the schema",
    429: "over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); "
    "nothing was changed; wait Retry-After seconds when given",
    502: "an LLM or embedding provider failed",
    503: "the store is unavailable",
}
RESPONSES: dict[int | str, dict] = {
    s: {"model": ErrorResponse, "description": d} for s, d in _DESCRIPTIONS.items()
}
"""The error responses every ``/v1`` route documents."""


def error_response(
    status: int, code: str, message: str, *, details=None, headers=None
) -> JSONResponse:
    body = ErrorResponse(error=ErrorDetail(code=code, message=message, details=details))
    return JSONResponse(
        body.model_dump(mode="json", exclude_none=True), status_code=status, headers=headers
    )


def status_of(err: BaseException) -> int:
    return next((status for kind, status in STATUS if isinstance(err, kind)), 500)


async def _memhub_error(request: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, MemHubError)
    status = status_of(err)
    if status >= 500:
        log.error("%s %s failed: %s", request.method, request.url.path, err)
    return error_response(status, err.code, " ".join(str(err).split()) or type(err).__name__)


async def _validation_error(request: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, RequestValidationError)
    details = [
        ErrorItem(
            loc=[str(p) if not isinstance(p, int) else p for p in e.get("loc", ())],
            msg=str(e.get("msg", "invalid")),
        )
        for e in err.errors()[:20]
    ]
    first = details[0] if details else None
    message = f"{'.'.join(map(str, first.loc))}: {first.msg}" if first else "invalid request"
    return error_response(422, "invalid_input", message, details=details)


async def _value_error(request: Request, err: Exception) -> JSONResponse:
    return error_response(400, InvalidInputError.code, str(err) or "invalid input")


async def _http_error(request: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, HTTPException)
    code = getattr(err, "code", None) or _HTTP_CODES.get(err.status_code, "http_error")
    return error_response(
        err.status_code, code, str(err.detail), headers=getattr(err, "headers", None)
    )


async def _unexpected(request: Request, err: Exception) -> JSONResponse:
    log.exception("%s %s failed", request.method, request.url.path)
    return error_response(500, "internal_error", "internal server error")


def install(app: FastAPI) -> None:
    """Register the handlers; a ``MemHubError`` maps by class (``STATUS``), anything unknown is a
    500.
    """
    app.add_exception_handler(MemHubError, _memhub_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(ValueError, _value_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
