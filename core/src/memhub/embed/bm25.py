"""BM25 sparse vectors, made client-side so every backend indexes the same way.

Qdrant Edge's ``Bm25`` with the multilingual tokenizer segments Chinese into words;
the collection's IDF modifier supplies the corpus statistics at query time.
"""

from __future__ import annotations

import qdrant_edge as qe

from memhub.store.base import SparseVector


class Bm25Encoder:
    def __init__(self) -> None:
        self._model = qe.Bm25(qe.Bm25Config(tokenizer=qe.TokenizerType.Multilingual, avg_len=32.0))

    def document(self, text: str) -> SparseVector:
        v = self._model.embed_document(text)
        return SparseVector(list(v.indices), list(v.values))

    def query(self, text: str) -> SparseVector:
        v = self._model.embed_query(text)
        return SparseVector(list(v.indices), list(v.values))
