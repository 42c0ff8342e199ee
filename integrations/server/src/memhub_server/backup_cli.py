"""``memhub backup`` and ``memhub restore``, and the server's backup schedule
(``serve-api --backup-every``); the backups themselves are ``memhub_server.backup``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memhub import Settings, UsageError

if TYPE_CHECKING:
    from memhub.cli.app import AddCommand, Invocation


def register(add: AddCommand) -> None:
    p = add(
        "backup",
        _backup,
        "write a consistent backup of every tenant (or --tenant) into DIR, kept N deep",
        scope=("tenant",),
    )
    p.add_argument("dir", metavar="DIR", help="the folder that holds the backups")
    p.add_argument(
        "--keep", type=int, default=0, metavar="N", help="keep the N newest backups (default all)"
    )

    p = add(
        "restore",
        _restore,
        "import a backup (every tenant, or --tenant) into tenants that hold nothing yet",
        scope=("tenant",),
    )
    p.add_argument(
        "backup",
        metavar="BACKUP",
        help="a backup folder (DIR/memhub-backup-...), or DIR: its newest",
    )


def _service(settings: Settings):
    from memhub_server.service import MemoryService

    return MemoryService(settings)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def schedule(inv: Invocation, service, settings: Settings, say: Callable[[str], None]):
    """The backup schedule asked for with ``--backup-every``, started; ``None`` when off."""
    from memhub_server.backup import BackupSchedule
    from memhub_server.schedule import parse_interval

    a = inv.args
    if a.backup_every is None or parse_interval(a.backup_every) == 0:
        return None
    root = Path(a.backup_dir or Path(settings.storage_dir) / "backups")
    schedule = BackupSchedule(
        service, root, parse_interval(a.backup_every), a.backup_keep, lambda x: say(f"memhub: {x}")
    )
    schedule.start()
    say(f"memhub: backup every {a.backup_every.strip()} into {root}, {a.backup_keep} kept")
    return schedule


async def _backup(inv: Invocation) -> None:
    from memhub_server.backup import backup

    tenant = getattr(inv.args, "tenant", None)
    if inv.args.keep < 0:
        raise UsageError("--keep must be 0 (all) or more")
    service = _service(inv.settings())
    try:
        folder = await backup(
            service, inv.args.dir, tenants=[tenant] if tenant else None, keep=inv.args.keep
        )
    finally:
        await service.close()
    print(folder)


async def _restore(inv: Invocation) -> None:
    from memhub_server.backup import PREFIX, backups_in, restore

    tenant = getattr(inv.args, "tenant", None)
    folder = Path(inv.args.backup)
    if not folder.name.startswith(PREFIX):  # the folder of backups: its newest
        found = backups_in(folder)
        if not found:
            raise UsageError(f"{folder} holds no memhub backup")
        folder = found[-1]
    service = _service(inv.settings())
    try:
        done = await restore(service, folder, tenants=[tenant] if tenant else None)
    finally:
        await service.close()
    for name, result in done.items():
        _say(f"memhub: restored tenant {name!r}: {result.imported} memories from {folder.name}")
