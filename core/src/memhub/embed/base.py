"""The embedding port."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class Embedder(Protocol):
    """Turns text into dense vectors.

    ``name`` identifies the model; the store remembers it, so opening a store with a
    different embedder is a clear error instead of silently mixing vector spaces.
    """

    name: str
    dim: int

    async def embed_query(self, text: str) -> list[float]: ...

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...
