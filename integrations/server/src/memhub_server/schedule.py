"""Scheduled digest: ``memhub serve --digest-every 24h`` (and ``serve-api``).

The quickstart's Core mode derives L3 patterns in the background: once the
interval has passed since the last round that digested something (24 hours by
default in dual mode; ``--digest-every 0`` turns it off), each tenant with
pending scopes (written in dual mode since the last digest) is digested once,
and what was done is logged. The time of that round is kept in the store's
folder, so a hub restarted every day still digests once a day instead of never.
A failed round is logged and retried one interval later; it never stops the server.

Several processes over one store (``serve-api --workers N``, or ``serve-api`` on several
machines over one Qdrant) each run the schedule, and each round is claimed first in the
store's ``meta`` collection (:func:`claim_round`): a conditional write on the round's
record, so of the processes that find a round due, one runs it and the others skip it.
The claim lives in the store, not in a lock file, because the store is the one thing
processes on different machines share.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from memhub import UsageError
from memhub.models import DigestResult
from memhub.store.base import Match, MemoryStore, StoredPoint, Where, pages
from memhub_server.service import MemoryService

log = logging.getLogger("memhub.digest")

STATE_FILE = "digest_schedule.json"
"""In the store's folder: when the current interval started (the last round with work)."""
DUAL_DEFAULT = "24"
"""``--digest-every`` of a hub in dual mode when none is given: the quickstart's 24 hours."""

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")


def parse_interval(text: str) -> float:
    """``"24h"``, ``"30m"``, ``"90s"``, ``"1d"`` or a plain number of hours (the quickstart's
    ``--digest-every 24``) -> seconds; ``0`` (off) -> ``0.0``."""
    found = _DURATION.match(text)
    if found is None:
        raise UsageError(f"not a duration: {text!r} (e.g. 24h, 30m, 90s, 1d; 0 turns it off)")
    return float(found[1]) * _UNITS[found[2] or "h"]


def round_record_id(name: str) -> str:
    """The id of the ``meta`` point that records ``name``'s last claimed round."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"memhub:schedule:{name}"))


async def claim_round(store: MemoryStore, name: str, since: float) -> tuple[bool, float]:
    """Claim the round of schedule ``name`` that is due after ``since`` (when this process last
    saw a round run): ``(True, now)`` if this process is to run it, ``(False, then)`` if
    another process ran one at ``then`` (after ``since``) or won the claim just now.

    The claim is a write conditional on the record's ``rev``: of two processes claiming at
    once, one write applies and the other finds the winner's mark when it reads back.
    """
    pid = round_record_id(name)
    found = await store.retrieve("meta", [pid])
    record = found[0].payload if found else {}
    rev, last = int(record.get("rev", 0)), record.get("last_run")
    if last is not None and float(last) > since:
        return False, float(last)
    now, mark = time.time(), uuid.uuid4().hex
    payload = {"kind": "schedule_round", "name": name, "last_run": now, "rev": rev + 1}
    await store.upsert(
        "meta",
        [StoredPoint(pid, {**payload, "by": mark})],
        only_if=Where(must=(Match("rev", rev),)),
    )
    after = await store.retrieve("meta", [pid])
    if after and after[0].payload.get("by") == mark:
        return True, now
    return False, float(after[0].payload["last_run"]) if after else now


async def pending_tenants(service: MemoryService) -> list[str]:
    """Tenants that have scopes waiting for a digest."""
    if not service.engine.is_open:
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


class Periodic:
    """A round of work on the server's loop, started and stopped with the server: a subclass
    names its task (``name``) and writes the loop (``_run``); a failed round is the
    subclass's to report, and never stops the server."""

    name = "memhub-periodic"
    _task: asyncio.Task | None = None
    service: MemoryService

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        raise NotImplementedError


class DigestSchedule(Periodic):
    """Runs :func:`digest_pending` every ``interval`` seconds until stopped.

    Args:
        service: the server's store and models.
        interval: seconds between rounds (the first round runs one interval after start).
        report: where each round's summary line goes (default: the ``memhub.digest`` logger).
        state: a file that keeps when the last round with work ran, across restarts (the first
            round then runs one interval after that, at once if it is overdue).
        shared: other processes run this schedule over the same store: claim each round
            first (:func:`claim_round`) and skip the rounds another process ran.
    """

    name = "memhub-digest"

    def __init__(
        self,
        service: MemoryService,
        interval: float,
        report: Callable[[str], None] | None = None,
        state: Path | None = None,
        *,
        shared: bool = False,
    ) -> None:
        self.service, self.interval, self.shared = service, interval, shared
        self.report = report or log.info
        self._state = state
        self._since = self._load()

    def _load(self) -> float:
        now = time.time()
        if self._state is None:
            return now
        try:
            return min(float(json.loads(self._state.read_text())["since"]), now)
        except (OSError, ValueError, KeyError, TypeError):  # none yet, or unreadable
            self._save(now)
            return now

    def _save(self, since: float) -> None:
        if self._state is not None:
            with contextlib.suppress(OSError):  # the schedule still runs, from memory
                self._state.write_text(json.dumps({"since": since}))

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(max(0.0, self._since + self.interval - time.time()))
            try:
                if self.shared:
                    won, self._since = await claim_round(
                        self.service.engine.store, "digest", self._since
                    )
                    if not won:
                        continue
                else:
                    self._since = time.time()
                done = await digest_pending(self.service)
            except Exception as err:  # a failed round must not stop the server
                self._since = time.time()
                self.report(f"digest failed, retrying in {self.interval:g}s: {err!r}")
                continue
            if done:
                self._save(self._since)
            else:
                self.report("digest: no pending scopes")
            for tenant, result in done.items():
                self.report(
                    f"digest: tenant {tenant!r}: {result.processed} scope(s) processed, "
                    f"{len(result.derived_ids)} derived item(s) written"
                )
