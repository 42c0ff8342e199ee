"""The local hub (``memhub serve``), as a client finds it.

The hub announces itself in ``<storage_dir>/hub.json`` (``{"url", "token", "pid"}``,
mode 0600); :func:`read_hub` reads it, and ``MemoryClient.open`` connects through
:func:`connect_hub` when the hub holds the store it was asked to open.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memhub.errors import MemHubError, StoreLockedError

if TYPE_CHECKING:
    from memhub.remote import RemoteClient
    from memhub.scope import Scope

__all__ = ["HUB_FILE", "Hub", "connect_hub", "read_hub"]

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


async def connect_hub(
    storage_dir: str | Path | None, scope: Scope | None = None
) -> RemoteClient | None:
    """A client connected to the hub holding ``storage_dir``; ``None`` if no hub is
    running there.
    """
    hub = read_hub(storage_dir)
    if hub is None:
        return None
    from memhub.remote import RemoteClient  # httpx is imported only for a hub

    client = RemoteClient(hub.url, hub.token, scope=scope)
    try:
        return await client.open()
    except MemHubError as err:
        await client.aclose()
        raise StoreLockedError(
            f"the memory store at {storage_dir} is held by the local hub (process {hub.pid}), "
            f"which did not answer at {hub.url}: {err}"
        ) from err
