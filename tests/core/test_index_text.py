"""What memories are indexed as: BM25 terms (Chinese unigrams + bigrams) and the date
of raw turns.
"""

from __future__ import annotations

import qdrant_edge as qe

from memhub.embed.bm25 import Bm25Encoder, cjk_terms
from memhub.engine.conversation import dated_text


def test_chinese_is_indexed_by_characters_and_bigrams():
    assert cjk_terms("Bart在圣诞节跳舞") == "bart 在圣 圣诞 诞节 节跳 跳舞 在 圣 诞 节 跳 舞"
    # terms are counted, not read in order: other words, then bigrams, then characters
    assert cjk_terms("用 PostgreSQL 16，不用Mongo") == "postgresql 16 mongo 不用 用 不 用"
    assert cjk_terms("snake_case里的词") == "snake case 里的 的词 里 的 词"


def test_a_chinese_query_shares_terms_with_a_differently_segmented_memory():
    bm25 = Bm25Encoder()
    doc = set(bm25.document("Bart在圣诞节晚会上跳舞，感觉非常开心。").indices)
    query = set(bm25.query("圣诞晚会").indices)  # 圣诞 诞晚 晚会 圣 诞 晚 会
    assert len(query) == 7 and len(query - doc) == 1  # all but the bigram across the two words


def test_text_without_chinese_is_encoded_as_before():
    old = qe.Bm25(qe.Bm25Config(tokenizer=qe.TokenizerType.Multilingual, avg_len=32.0))
    text = "We chose the blue car as the main one; don't take the red one."
    new = Bm25Encoder().document(text)
    ref = old.embed_document(text)
    assert (new.indices, new.values) == (list(ref.indices), list(ref.values))
    # a text naming a tool keeps its own terms as they were, and gains its kind's words
    # (memhub.known_tools)
    text = "We chose PostgreSQL 16 as the main database; don't use MongoDB."
    new = Bm25Encoder().document(text)
    ref = old.embed_document(text)
    own = dict(zip(ref.indices, ref.values, strict=True))
    assert {i: v for i, v in zip(new.indices, new.values, strict=True) if i in own} == own
    assert len(new.indices) > len(own)


def test_raw_turns_are_indexed_with_their_day_in_the_language_of_the_text():
    assert dated_text("Bart danced at the Christmas party.", "2023-12-25") == (
        "December 25, 2023: Bart danced at the Christmas party."
    )
    assert dated_text("我住在上海", "2026-07-01T09:00:00Z") == "2026年7月1日：我住在上海"
    assert dated_text("no date", None) == "no date"
    assert dated_text("not a date", "yesterday") == "not a date"
    assert dated_text("bad month", "2023-13-01") == "bad month"
