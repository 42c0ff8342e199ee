"""How related a stored neighbour is to what is being written, on one scale for every embedder."""

from __future__ import annotations

from memhub.engine.core import Engine


def relation_score(engine: Engine, cosine: float) -> float:
    """Cosine rescaled so that 0 means unrelated for this embedder (e5's cosines start near 0.8)."""
    floor = engine.embedder.similarity_floor
    return max(0.0, min(1.0, (cosine - floor) / (1.0 - floor)))
