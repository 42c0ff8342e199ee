"""Scheduled digest: ``memhub serve --digest-every 24h`` (and ``serve-api``).

The quickstart's Core mode derives L3 patterns in the background: every
interval, each tenant with pending scopes (written in dual mode since the last
digest) is digested once, and what was done is logged. A failed round is logged
and retried at the next interval; it never stops the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable

from memhub import UsageError
from memhub.models import DigestResult
from memhub.store.base import Match, Where, pages
from memhub_server.service import MemoryService

log = logging.getLogger("memhub.digest")

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")


def parse_interval(text: str) -> float:
    """``"24h"``, ``"30m"``, ``"90s"``, ``"1d"`` or plain seconds -> seconds (> 0)."""
    found = _DURATION.match(text)
    seconds = float(found[1]) * _UNITS[found[2] or "s"] if found else 0.0
    if seconds <= 0:
        raise UsageError(f"not a duration: {text!r} (e.g. 24h, 30m, 90s, 1d)")
    return seconds


async def pending_tenants(service: MemoryService) -> list[str]:
    """Tenants that have scopes waiting for a digest."""
    if not service.engine._opened:
        await service.open()
    tenants: set[str] = set()
    where = Where(must=(Match("kind", "pending_scope"),))
    async for page in pages(service.engine.store, "meta", where):
        tenants.update(p.payload.get("scope", {}).get("tenant", "local") for p in page)
    return sorted(tenants)


async def digest_pending(service: MemoryService) -> dict[str, DigestResult]:
    """One round: digest every tenant with pending scopes; returns what each got."""
    done: dict[str, DigestResult] = {}
    for tenant in await pending_tenants(service):
        client = await service.client(tenant)
        done[tenant] = await client.digest(mode="dual")
    return done


class DigestSchedule:
    """Runs :func:`digest_pending` every ``interval`` seconds until stopped.

    Args:
        service: the server's store and models.
        interval: seconds between rounds (the first round runs one interval after start).
        report: where each round's summary line goes (default: the ``memhub.digest`` logger).
    """

    def __init__(
        self, service: MemoryService, interval: float, report: Callable[[str], None] | None = None
    ) -> None:
        self.service, self.interval = service, interval
        self.report = report or log.info
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="memhub-digest")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                done = await digest_pending(self.service)
            except Exception as err:  # a failed round must not stop the server
                self.report(f"digest failed, retrying in {self.interval:g}s: {err!r}")
                continue
            if not done:
                self.report("digest: no pending scopes")
            for tenant, result in done.items():
                self.report(
                    f"digest: tenant {tenant!r}: {result.processed} scope(s) processed, "
                    f"{len(result.derived_ids)} derived item(s) written"
                )
