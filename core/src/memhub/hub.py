"""The local hub (``memhub serve``), as a client finds it.

The hub announces itself in ``<storage_dir>/hub.json`` (``{"url", "token", "pid"}``,
mode 0600); :func:`read_hub` reads it, and ``MemoryClient.open`` connects through
:func:`memhub.remote.connect_hub` when the hub holds the store it was asked to open.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HUB_FILE", "Hub", "read_hub"]

HUB_FILE = "hub.json"


@dataclass(frozen=True)
class Hub:
    """A running local hub, as announced in ``hub.json``."""

    url: str
    token: str
    pid: int


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but another user's
        return True
    return True


def read_hub(storage_dir: str | Path | None) -> Hub | None:
    """The hub announced in ``<storage_dir>/hub.json`` if its process is alive, else ``None``."""
    if storage_dir is None:
        return None
    try:
        data = json.loads((Path(storage_dir) / HUB_FILE).read_text())
        hub = Hub(url=str(data["url"]), token=str(data["token"]), pid=int(data["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return hub if _alive(hub.pid) else None
