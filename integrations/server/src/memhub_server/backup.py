"""Backups: a consistent snapshot of a tenant or of the whole store, kept N deep.

A backup is a folder ``memhub-backup-<UTC time>/`` with one export per tenant
(``<tenant>.jsonl``: every version of every memory with its audit trail and vectors,
``memhub.engine.transfer.jsonl``) and a ``manifest.json`` naming the tenants, their counts and
the store's snapshot version. It is written under the engine's write lock: no write
applies while it runs, so every chain, supersede and audit step is in it whole or not
at all, for every tenant in it. Writes wait for it (they read and decide meanwhile;
only their apply step waits): on this 2-core machine 2,000 memories with their
256-d vectors took 0.3-0.4 s on Qdrant Edge, so a store of 100,000 holds writes for
some 20 s: schedule backups of large stores off-peak. The folder appears under its
name only once complete (written as ``.tmp`` first, then renamed).

It is built on export and import, not on store files: the two round-trip exactly
(ids, versions, chains, exposure, audit), they work the same on Qdrant Edge and on a
Qdrant server, and a restore can go into another store or backend. Qdrant Edge has
no snapshot of its own to make (it unpacks snapshots made by a Qdrant server).

Restore goes into tenants that hold nothing (a new store, or a tenant erased first):
restoring over live data would mix two histories, so a tenant that holds memories
is refused and nothing is written. ``memhub backup`` / ``memhub restore`` run on a
store no server holds; ``memhub serve-api --backup-every 24h --backup-dir DIR`` makes
them from the running server.

The LangGraph store items of the framework adapters are not in an export, so not in a
backup either.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memhub.engine.read import browse
from memhub.engine.transfer.export import export
from memhub.errors import InvalidInputError
from memhub.models import ImportResult
from memhub_server.schedule import Periodic, claim_round
from memhub_server.service import MemoryService

log = logging.getLogger("memhub.backup")

PREFIX = "memhub-backup-"
MANIFEST = "manifest.json"
MAX_TENANTS = 100_000


async def tenants_of(service: MemoryService) -> list[str]:
    """Every tenant that holds memories in the store."""
    values = await service.engine.store.facet("memories", "tenant", limit=MAX_TENANTS)
    return sorted(str(value) for value, _ in values)


async def backup(
    service: MemoryService, root: str | Path, *, tenants: list[str] | None = None, keep: int = 0
) -> Path:
    """Write a consistent backup of ``tenants`` (default: every tenant) under ``root``.

    Args:
        service: the open store.
        root: the folder that holds the backups.
        tenants: the tenants to take; default every tenant with memories.
        keep: keep only the ``keep`` newest backups in ``root`` (0: keep all).

    Returns:
        The new backup's folder.
    """
    if keep < 0:
        raise InvalidInputError("keep must be 0 (all) or more")
    if not service.engine.is_open:
        await service.open()
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    name = PREFIX + datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    tmp = root / f".{name}.tmp"
    tmp.mkdir()
    engine = service.engine

    async def take() -> dict[str, Any]:
        async with engine.write_lock:  # nothing applies until every tenant is written
            chosen = sorted(set(tenants)) if tenants is not None else await tenants_of(service)
            counts = {}
            for tenant in chosen:
                with (tmp / f"{tenant}.jsonl").open("w", encoding="utf-8") as out:
                    result = await export(engine, out.write, tenant, include_vectors=True)
                counts[tenant] = result.exported
            return {
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "snapshot_version": engine.snapshot_version,
                "embedder": engine.embedder.name,
                "tenants": counts,
            }

    try:
        manifest = await engine.owner.call(take())
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        tmp.rename(root / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if keep:
        rotate(root, keep)
    return root / name


def backups_in(root: str | Path) -> list[Path]:
    """The complete backups in ``root``, oldest first."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.name.startswith(PREFIX) and p.is_dir())


def rotate(root: str | Path, keep: int) -> list[Path]:
    """Remove all but the ``keep`` newest backups in ``root``; returns the removed ones."""
    gone = backups_in(root)[:-keep] if keep else []
    for old in gone:
        shutil.rmtree(old)
    return gone


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a backup folder, or ``InvalidInputError`` saying what is wrong."""
    path = Path(folder) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise InvalidInputError(f"{folder} is not a memhub backup: {err}") from err
    if not isinstance(manifest, dict) or not isinstance(manifest.get("tenants"), dict):
        raise InvalidInputError(f"{path} names no tenants: not a memhub backup")
    return manifest


async def restore(
    service: MemoryService, folder: str | Path, *, tenants: list[str] | None = None
) -> dict[str, ImportResult]:
    """Import a backup's tenants (default: all of it) into the store.

    Every tenant restored must hold no memories yet: if one does, nothing is restored.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    chosen = sorted(manifest["tenants"]) if tenants is None else sorted(set(tenants))
    unknown = [t for t in chosen if t not in manifest["tenants"]]
    if unknown:
        raise InvalidInputError(f"the backup {folder.name} holds no tenant {', '.join(unknown)}")
    if not service.engine.is_open:
        await service.open()
    held = {t: await browse.count(service.engine, t) for t in chosen}
    busy = {t: n for t, n in held.items() if n}
    if busy:
        listed = ", ".join(f"{t} ({n})" for t, n in busy.items())
        raise InvalidInputError(
            f"these tenants already hold memories: {listed}. Restore into an empty store, "
            f"or erase the tenant first; nothing was restored"
        )
    done = {}
    for tenant in chosen:
        client = await service.client(tenant)
        done[tenant] = await client.import_(folder / f"{tenant}.jsonl", strict=True)
    return done


class BackupSchedule(Periodic):
    """``backup(...)`` of every tenant every ``interval`` seconds, keeping ``keep``.

    A failed round is reported and retried one interval later; it never stops the server.
    Each round is claimed in the store first (``schedule.claim_round``), so of several
    processes over one store, one takes it.
    """

    name = "memhub-backup"

    def __init__(
        self,
        service: MemoryService,
        root: Path,
        interval: float,
        keep: int,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.service, self.root, self.interval, self.keep = service, root, interval, keep
        self.report = report or log.info

    async def _run(self) -> None:
        since = time.time()
        while True:
            await asyncio.sleep(max(0.0, since + self.interval - time.time()))
            started = time.monotonic()
            try:
                won, since = await claim_round(self.service.engine.store, "backup", since)
                if not won:
                    continue
                folder = await backup(self.service, self.root, keep=self.keep)
            except Exception as err:  # a failed round must not stop the server
                since = time.time()
                self.report(f"backup failed, retrying in {self.interval:g}s: {err!r}")
                continue
            self.report(f"backup: {folder} in {time.monotonic() - started:.1f}s")
