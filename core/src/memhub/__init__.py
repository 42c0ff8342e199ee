"""memhub: long-term memory for AI agents, on Qdrant, offline by default.

Example:
    >>> from memhub import SyncMemoryClient
    >>> with SyncMemoryClient() as client:
    ...     client.memorize("项目用 PostgreSQL 16 做主数据库")
    ...     client.recall("数据库选型").atoms[0].content
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from memhub.errors import (
    ConflictError,
    EmbedderMismatchError,
    InvalidInputError,
    InvalidTransitionError,
    MemHubError,
    NotFoundError,
    ProviderError,
    StoreLockedError,
    UsageError,
)
from memhub.scope import ANY

if TYPE_CHECKING:
    from memhub.client import MemoryClient
    from memhub.config import Settings
    from memhub.sync import SyncMemoryClient

__version__ = "0.1.0"

# The clients pull in the engine, the stores, the embedders and the heuristics (numpy,
# Qdrant Edge, thousands of compiled patterns: seconds on a busy 2-core machine), so
# ``import memhub`` stays light and they load on first use (PEP 562).
_LAZY = {
    "MemoryClient": "memhub.client",
    "Settings": "memhub.config",
    "SyncMemoryClient": "memhub.sync",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memhub' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "ANY",
    "ConflictError",
    "EmbedderMismatchError",
    "InvalidInputError",
    "InvalidTransitionError",
    "MemHubError",
    "MemoryClient",
    "NotFoundError",
    "ProviderError",
    "Settings",
    "StoreLockedError",
    "SyncMemoryClient",
    "UsageError",
]
