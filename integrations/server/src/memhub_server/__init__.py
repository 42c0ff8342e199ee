"""memhub's REST service (multi-tenant, API keys) and the local hub (``memhub serve``).

Example:
    >>> from memhub import Settings
    >>> from memhub_server import create_app
    >>> app = create_app(Settings.load(storage_dir="./.memhub_data"))   # run with uvicorn

The ``memhub`` command loads ``memhub_server.cli`` on every run (entry point
``memhub.cli``), so this package imports FastAPI and uvicorn only when one of the
names below is first used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memhub_server.app import create_app
    from memhub_server.auth import KeyStore, SingleToken
    from memhub_server.hub import LocalHub
    from memhub_server.service import MemoryService

__all__ = ["KeyStore", "LocalHub", "MemoryService", "SingleToken", "create_app"]

_HOME = {
    "create_app": "memhub_server.app",
    "KeyStore": "memhub_server.auth",
    "SingleToken": "memhub_server.auth",
    "LocalHub": "memhub_server.hub",
    "MemoryService": "memhub_server.service",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'memhub_server' has no attribute {name!r}")
    return getattr(import_module(_HOME[name]), name)
