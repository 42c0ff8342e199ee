"""Per-tenant limits: request rate, writes at once, and a quota of stored memories.

Three limits, each off until set, in the settings (every tenant) or on one API key
(that key's requests; ``memhub keys create --rate ... --writes ... --quota ...``):

``rate_limit`` / ``rate``
    requests per window, in the ``limits`` library's notation: ``"20/second"``,
    ``"20/second;600/minute"`` (each must hold). Counted per tenant over a moving
    window, every ``/v1`` request alike.
``max_concurrent_writes`` / ``writes``
    writes of a tenant in progress at once (adds, updates, imports, ...; searches
    and reads do not count).
``memory_quota`` / ``quota``
    stored memories of a tenant (every layer and status, as ``memhub_memories``
    counts them); a write that could add memories is refused once the tenant holds
    this many. An add admitted just under it may take the tenant past by its own
    records, never by more.

A request over a limit gets 429 before anything of it runs, so nothing is half
written. The rate is checked first, by ``RateGate`` in front of the app, from the key
alone: a refused request costs no body parsing, no validation and no routing, so a
tenant sending ten times its rate takes little from the others
(``bench/server_load.py --flood``). The answer:
``{"error": {"code": "rate_limited" | "too_many_writes" | "quota_exceeded"}}``.
The first two carry ``Retry-After`` (seconds until the window frees a request, or 1
for a write slot); the quota's does not, since waiting does not free it (deleting
memories, or a larger quota, does).

The rate windows live in ``rate_limit_storage`` (``memory://``: this process). With
several workers each keeps its own window, so a tenant gets up to N times its rate;
a shared storage (``redis://host:6379``, with the ``redis`` package installed) makes
the limit hold across them. Write slots are per process in any case.

We use ``limits`` (moving windows, many storages) rather than a token bucket of our
own: the windows of several workers can then be shared without new code.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from memhub.errors import InvalidInputError, UsageError
from memhub_server import errors

# POST routes that only read: they take no write slot and no quota.
READ_POSTS = frozenset(
    {
        "/v1/memories/search",
        "/v1/memories/search-conversation",
        "/v1/memories/conversation",
        "/v1/hmg/recall",
        "/v1/hmg/context",
        "/v1/records/get",
        "/v1/records/scroll",
        "/v1/records/count",
        "/v1/records/search",
    }
)
# Writes that only hide or remove: a tenant at its quota must still be able to make room.
SHRINKING = frozenset({"/v1/hmg/govern", "/v1/hmg/purge", "/v1/records/delete"})
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class LimitExceeded(HTTPException):
    """429: a tenant is over one of its limits; ``code`` names which."""

    def __init__(self, code: str, message: str, *, retry_after: int | None = None) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        super().__init__(429, message, headers)
        self.code = code


def parse_rate(text: str) -> list[RateLimitItem]:
    """``"20/second;600/minute"`` as rate limit items; ``InvalidInputError`` if malformed."""
    try:
        items = parse_many(text)
    except ValueError as err:
        raise InvalidInputError(
            f"rate limit {text!r} is not like '20/second' or '20/second;600/minute'"
        ) from err
    if not items:
        raise InvalidInputError(f"rate limit {text!r} is empty")
    return items


@dataclass(frozen=True)
class Limit:
    """The limits of one request's key: ``None`` fields are unlimited."""

    rate: str | None = None
    writes: int | None = None
    quota: int | None = None

    def over(self, default: Limit) -> Limit:
        """This key's limits, with ``default``'s where the key sets none."""
        return Limit(
            rate=self.rate if self.rate is not None else default.rate,
            writes=self.writes if self.writes is not None else default.writes,
            quota=self.quota if self.quota is not None else default.quota,
        )


def is_write(method: str, route: str) -> bool:
    """Whether a request may change the store (what takes a write slot)."""
    return method in WRITE_METHODS and route not in READ_POSTS


def may_grow(method: str, route: str) -> bool:
    """Whether a write may add memories (what the quota refuses)."""
    return is_write(method, route) and method != "DELETE" and route not in SHRINKING


class TenantLimits:
    """The limits of one server (see the module docstring).

    Args:
        default: every tenant's limits (from the settings).
        storage: where rate windows are kept (a ``limits`` storage URI).
        count: ``await count(tenant)``: the tenant's stored memories (for the quota).
    """

    def __init__(self, default: Limit, storage: str = "memory://", count: Any = None) -> None:
        self.default = default
        if default.rate:
            parse_rate(default.rate)  # a bad setting fails at start, not on a request
        self._windows = MovingWindowRateLimiter(storage_from_string(storage))
        self._items: dict[str, list[RateLimitItem]] = {}
        self._writing: dict[str, int] = {}
        self._count = count

    @classmethod
    def from_settings(cls, settings: Any, count: Any = None) -> TenantLimits:
        """The limits the settings set (``rate_limit``, ``max_concurrent_writes``,
        ``memory_quota``, ``rate_limit_storage``)."""
        default = Limit(
            rate=settings.rate_limit or None,
            writes=settings.max_concurrent_writes or None,
            quota=settings.memory_quota or None,
        )
        return cls(default, settings.rate_limit_storage, count)

    def _rate_items(self, rate: str) -> list[RateLimitItem]:
        items = self._items.get(rate)
        if items is None:
            items = self._items[rate] = parse_rate(rate)
        return items

    def check_rate(self, tenant: str, rate: str | None) -> None:
        """Count one request of ``tenant``; 429 ``rate_limited`` if a window is full."""
        if not rate:
            return
        items = self._rate_items(rate)
        # Test every window before counting in any: a refused request must not use up
        # the tenant's other windows.
        full = [item for item in items if not self._windows.test(item, tenant)]
        if not full:
            for item in items:
                self._windows.hit(item, tenant)
            return
        reset = max(self._windows.get_window_stats(item, tenant).reset_time for item in full)
        wait = max(1, math.ceil(reset - time.time()))
        raise LimitExceeded(
            "rate_limited",
            f"tenant {tenant!r} is over its request rate ({rate}); retry in {wait} s",
            retry_after=wait,
        )

    async def check_quota(self, tenant: str, quota: int | None) -> None:
        """429 ``quota_exceeded`` if ``tenant`` already holds ``quota`` memories."""
        if quota is None or self._count is None:
            return
        held = await self._count(tenant)
        if held >= quota:
            raise LimitExceeded(
                "quota_exceeded",
                f"tenant {tenant!r} holds {held} memories, its quota is {quota}: delete some "
                f"or ask the operator for a larger quota",
            )

    @asynccontextmanager
    async def admit(
        self, tenant: str, method: str, route: str, key: Limit | None = None
    ) -> AsyncIterator[None]:
        """Hold a write slot of ``tenant`` while the block runs, or raise a 429 (the rate was
        checked by ``RateGate`` already).

        Every check runs before the request does anything, so a refused request changes
        nothing.
        """
        limit = (key or Limit()).over(self.default)
        if not is_write(method, route):
            yield
            return
        if may_grow(method, route):
            await self.check_quota(tenant, limit.quota)
        if limit.writes is not None and self._writing.get(tenant, 0) >= limit.writes:
            raise LimitExceeded(
                "too_many_writes",
                f"tenant {tenant!r} already has {limit.writes} writes in progress; retry in 1 s",
                retry_after=1,
            )
        self._writing[tenant] = self._writing.get(tenant, 0) + 1
        try:
            yield
        finally:
            left = self._writing[tenant] - 1
            if left:
                self._writing[tenant] = left
            else:
                del self._writing[tenant]

    def writing(self, tenant: str) -> int:
        """Writes of ``tenant`` in progress now."""
        return self._writing.get(tenant, 0)


class RateGate:
    """ASGI middleware: 429 for a ``/v1`` request over its tenant's rate, before the app
    reads or parses anything of it. A request without a known key goes on (the app answers
    401, or 503 for a broken key file)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = None
        if scope["type"] == "http" and scope["path"].startswith("/v1/"):
            refused = self._check(scope)
        if refused is None:
            await self.app(scope, receive, send)
            return
        response = errors.error_response(
            429, refused.code, str(refused.detail), headers=refused.headers
        )
        await response(scope, receive, send)

    def _check(self, scope: Scope) -> LimitExceeded | None:
        state = scope["app"].state
        limits: TenantLimits | None = getattr(state, "limits", None)
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        if limits is None or scheme.lower() != "bearer" or not token:
            return None
        try:
            tenant = state.auth.tenant_for(token)
        except UsageError:  # a broken key file: the app says so (503)
            return None
        if tenant is None:
            return None
        scope.setdefault("state", {})["tenant"] = tenant  # the access line names it
        limits_for = getattr(state.auth, "limits_for", None)
        key = limits_for(token) if limits_for else None
        try:
            limits.check_rate(tenant, (key or Limit()).over(limits.default).rate)
        except LimitExceeded as err:
            return err
        return None
