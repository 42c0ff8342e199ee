"""Embedders: the bundled e5 model (default), hosted OpenAI-compatible APIs, BM25."""

from memhub.embed.base import Embedder
from memhub.embed.bm25 import Bm25Encoder
from memhub.embed.e5 import E5Embedder
from memhub.embed.openai_compat import OpenAICompatibleEmbedder

__all__ = ["Bm25Encoder", "E5Embedder", "Embedder", "OpenAICompatibleEmbedder"]
