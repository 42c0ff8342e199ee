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
    similarity_floor: float
    """The cosine of two unrelated texts for this model (0.0 for most; e5 crowds into
    0.7-1.0): the write path rescales by it so thresholds mean the same for every model."""

    async def embed_query(self, text: str) -> list[float]: ...

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...
