"""Proof, by type checking, that every implementation of the API conforms to it.

Never imported: ``mypy`` (``make lint``) checks these assignments, and an operation that
one backend or client lacks, or takes or answers differently from :class:`MemoryAPI`,
fails the lint. The blocking faces need no line here: each of their operations is derived
from ``MemoryAPI``'s by :func:`memhub.sync_face.blocking`.
"""

from __future__ import annotations

from memhub.api import ClientAPI, MemoryAPI
from memhub.client import MemoryClient
from memhub.local import LocalBackend
from memhub.remote import RemoteClient


def backends(local: LocalBackend, remote: RemoteClient) -> tuple[MemoryAPI, MemoryAPI]:
    """The two backends ``MemoryClient`` chooses from at ``open()``."""
    return local, remote


def clients(local: MemoryClient, remote: RemoteClient) -> tuple[ClientAPI, ClientAPI]:
    """The two async clients an adapter takes."""
    return local, remote
