"""A deterministic embedder for tests: character n-grams hashed into a fixed-size vector.

Texts that share words or characters land close together, so retrieval tests
behave like with a real model, but it is instant and identical on every machine.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from memhub.text import normalize


class HashEmbedder:
    name = "memhub-testing/hash"
    similarity_floor = 0.0

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.calls = 0

    def vector(self, text: str) -> list[float]:
        s = normalize(text).replace(" ", "_")
        vec = [0.0] * self.dim
        for n in (1, 2, 3):
            for i in range(max(1, len(s) - n + 1)):
                h = int.from_bytes(
                    hashlib.blake2b(s[i : i + n].encode(), digest_size=8).digest(), "big"
                )
                vec[h % self.dim] += 1.0 if (h >> 63) else -1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    async def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return self.vector(text)

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self.vector(t) for t in texts]
