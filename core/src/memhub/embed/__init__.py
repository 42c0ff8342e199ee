"""Embedders: the bundled e5 model (default), hosted OpenAI-compatible APIs, BM25.

Each loads when first named (PEP 562): the e5 embedder pulls in numpy and its model
runtime, which a client that embeds over an API, or only imports memhub, never needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memhub.embed.base import Embedder
    from memhub.embed.bm25 import Bm25Encoder
    from memhub.embed.e5 import E5Embedder
    from memhub.embed.openai_compat import OpenAICompatibleEmbedder

_LAZY = {
    "Bm25Encoder": "memhub.embed.bm25",
    "E5Embedder": "memhub.embed.e5",
    "Embedder": "memhub.embed.base",
    "OpenAICompatibleEmbedder": "memhub.embed.openai_compat",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memhub.embed' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["Bm25Encoder", "E5Embedder", "Embedder", "OpenAICompatibleEmbedder"]
