"""BM25 sparse vectors, made client-side so every backend indexes the same way.

Text without Chinese characters goes through Qdrant Edge's ``Bm25`` with the
multilingual tokenizer (English stop words and stemming). Text with Chinese
characters is indexed by character unigrams and bigrams instead of segmented words
(see :func:`cjk_terms`); the collection's IDF modifier supplies the corpus
statistics at query time.
"""

from __future__ import annotations

import re

import qdrant_edge as qe

from memhub._cjk import HAN, HAN_CHAR
from memhub.known_tools import kind_words
from memhub.store.base import SparseVector

# Han ideographs: the script written without spaces between words that the word
# segmenter gets wrong most often. Each pattern is one C-level pass over the whole text.
_BIGRAM = re.compile(f"(?=([{HAN}]{{2}}))")  # overlapping: every pair of adjacent ideographs
_UNIGRAM = re.compile(f"[{HAN}]")
_OTHER = re.compile(f"[^\\W_{HAN}]+")  # a word, or the part of one between ideographs


def cjk_terms(text: str) -> str:
    """``text`` as space-separated terms: every Chinese run as its characters and bigrams.

    Word segmentation splits the same phrase differently in a short query and in a
    stored sentence (and does not know names), so a query often shares no word with
    the memory it is about. Overlapping unigrams and bigrams always share terms: on
    MADial-Bench (Chinese) BM25 recall@5 went from 0.45 to 0.55. Other words are
    kept whole (numbers too), lower-cased. The terms come as three groups (other
    words, bigrams, characters): BM25 counts terms, their order does not matter, and
    three regex passes take ~10 ms on 100,000 characters where a Python loop over
    the words of a run like "把 把 把" took ~90 ms (``bench/adversarial_bench.py``).

    Example:
        >>> cjk_terms("Bart在圣诞节跳舞")
        'bart 在圣 圣诞 诞节 节跳 跳舞 在 圣 诞 节 跳 舞'
    """
    lowered = text.lower()
    return " ".join(
        [*_OTHER.findall(lowered), *_BIGRAM.findall(lowered), *_UNIGRAM.findall(lowered)]
    )


class Bm25Encoder:
    """Document and query sparse vectors (term weights; IDF is applied by the store).

    Text without Chinese characters is encoded exactly as before this encoder learned
    about Chinese, so stores written earlier stay consistent for it. Chinese text
    written by an earlier version was indexed by segmented words: it still matches
    the unigrams and bigrams of its one- and two-character words.
    """

    def __init__(self) -> None:
        self._model = qe.Bm25(qe.Bm25Config(tokenizer=qe.TokenizerType.Multilingual, avg_len=32.0))
        # Same BM25 parameters; the terms are already split by ``cjk_terms``.
        self._cjk = qe.Bm25(qe.Bm25Config(tokenizer=qe.TokenizerType.Whitespace, avg_len=32.0))
        # the terms of each set of kind words met (``_kind_terms``): a few hundred at most
        self._kinds: dict[tuple[str, ...], tuple[tuple[int, float], ...]] = {}

    def __reduce__(self) -> tuple[type[Bm25Encoder], tuple[()]]:
        # Nothing to copy but the class: a worker process (``memhub.cpu``) builds its own.
        return (Bm25Encoder, ())

    def _pick(self, text: str) -> tuple[qe.Bm25, str]:
        return (self._cjk, cjk_terms(text)) if HAN_CHAR.search(text) else (self._model, text)

    def document(self, text: str) -> SparseVector:
        model, terms = self._pick(text)
        v = model.embed_document(terms)
        weights = dict(zip(v.indices, v.values, strict=True))
        if kinds := kind_words(text):
            # the kind's words weigh as a word said once in the text; a word the text says
            # itself keeps its weight
            once = min(weights.values(), default=0.0)
            for index, value in self._kind_terms(tuple(kinds)):
                weights.setdefault(index, once or value)
        return SparseVector(list(weights), list(weights.values()))

    def _kind_terms(self, kinds: tuple[str, ...]) -> tuple[tuple[int, float], ...]:
        """The terms of the words of the kinds of tools a text names (``memhub.known_tools``).

        Each language's words are made into terms as a query in that language makes
        them, so "which database" (stemmed English) and "数据库选型" (Chinese bigrams) both
        find "We upgraded to PostgreSQL 17", and "日志存在 MongoDB 里" alike.
        """
        if (known := self._kinds.get(kinds)) is not None:
            return known
        zh = " ".join(w for w in kinds if HAN_CHAR.search(w))
        en = " ".join(w for w in kinds if not HAN_CHAR.search(w))
        terms: list[tuple[int, float]] = []
        for model, words in ((self._model, en), (self._cjk, cjk_terms(zh))):
            if words:
                extra = model.embed_document(words)
                terms += zip(extra.indices, extra.values, strict=True)
        if len(self._kinds) < 1024:
            self._kinds[kinds] = tuple(terms)
        return tuple(terms)

    def documents(self, texts: list[str]) -> list[SparseVector]:
        """``document`` of each text."""
        return [self.document(t) for t in texts]

    def query(self, text: str) -> SparseVector:
        model, terms = self._pick(text)
        v = model.embed_query(terms)
        return SparseVector(list(v.indices), list(v.values))
