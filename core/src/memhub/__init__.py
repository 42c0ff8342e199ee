"""memhub: long-term memory for AI agents, on Qdrant, offline by default.

Example:
    >>> from memhub import SyncMemoryClient
    >>> with SyncMemoryClient() as client:
    ...     client.memorize("项目用 PostgreSQL 16 做主数据库")
    ...     client.recall("数据库选型").atoms[0].content
"""

from memhub.client import MemoryClient
from memhub.config import Settings
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
from memhub.sync import SyncMemoryClient

__version__ = "0.1.0"

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
