"""The one error hierarchy every door maps the same way (CLI exit code, HTTP status, MCP error)."""

from __future__ import annotations

__all__ = [
    "ConflictError",
    "EmbedderMismatchError",
    "InvalidInputError",
    "InvalidTransitionError",
    "MemHubError",
    "NotFoundError",
    "ProviderError",
    "StoreLockedError",
    "UsageError",
]


class MemHubError(Exception):
    """Base class of every error memhub raises on purpose."""

    code = "memhub_error"


class InvalidInputError(MemHubError, ValueError):
    """The caller sent something memhub cannot accept; nothing was changed."""

    code = "invalid_input"


class NotFoundError(MemHubError, KeyError):
    """No memory with that id in the caller's scope."""

    code = "not_found"

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not found"


class InvalidTransitionError(MemHubError):
    """The requested correct/govern action is not allowed from the memory's current state."""

    code = "invalid_transition"


class ConflictError(MemHubError):
    """Another writer changed the memory between our read and our write; retry."""

    code = "conflict"


class StoreLockedError(MemHubError):
    """The embedded store is held by another process."""

    code = "store_locked"


class EmbedderMismatchError(MemHubError):
    """The store was built with a different embedder than the one configured."""

    code = "embedder_mismatch"


class ProviderError(MemHubError):
    """An LLM or embedding provider failed after the retry budget was spent."""

    code = "provider_error"


class UsageError(MemHubError, RuntimeError):
    """The API was used in a way it cannot work (e.g. the sync client inside an event loop)."""

    code = "usage_error"
