"""Raw turns in long conversations: indexed with the turn before them, ranked by who said them."""

from __future__ import annotations

import math

import pytest

from memhub import MemoryClient
from memhub.engine.conversation import (
    CONTEXT,
    answers_follow,
    dated_text,
    in_context,
    index_text,
    is_question,
    named,
    prefer_speakers,
    without_names,
)
from memhub.ids import to_point_id


def _cos(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


def test_a_turn_is_indexed_with_the_turn_before_it_and_its_day():
    assert index_text("In Lyon.", "2023-05-08T13:56:00", "Where do you live?") == (
        "May 8, 2023: Where do you live?\nIn Lyon."
    )
    assert index_text("In Lyon.", None) == "In Lyon."


def test_a_turn_vector_leans_towards_the_previous_turn_and_stays_unit_length():
    question, answer = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    assert in_context(question, None) == question
    mixed = in_context(answer, question, weight=0.3)
    assert 0 < _cos(mixed, question) < _cos(mixed, answer)
    assert math.isclose(sum(x * x for x in mixed), 1.0)


DOG = [
    {"role": "user", "content": "I also like cooking pasta on weekends."},
    {"role": "assistant", "content": "That sounds great, which sauce?"},
    {"role": "user", "content": "Tomato, mostly. What's the name of your dog?"},
    {"role": "assistant", "content": "He's called Rex."},
    {"role": "user", "content": "Cute! I went hiking in the Alps last summer."},
    {"role": "assistant", "content": "Lucky you, how were the views?"},
]


async def test_an_answer_is_found_by_the_words_of_the_question_it_answers(either):
    written = await either.add(messages=DOG, user_id="u1")
    turns = (await either.search_conversation("dog name", user_id="u1", limit=2)).turns
    # the answer first, stored as said (without the question it is indexed with)
    assert [t.content for t in turns] == [
        "He's called Rex.",
        "Tomato, mostly. What's the name of your dog?",
    ]
    # each turn names the one it is indexed with: what an import rebuilds the index from
    stored = await either.engine.get_many(written.raw_ids)
    by_id = {p["id"]: p for p in stored}
    assert [by_id[i].get(CONTEXT) for i in written.raw_ids] == [None, *written.raw_ids[:-1]]


async def test_a_retried_add_indexes_a_new_turn_with_the_stored_one_before_it(client):
    first = await client.add(messages=[{**DOG[2], "id": "m1"}], user_id="u1")
    again = await client.add(messages=[{**DOG[2], "id": "m1"}, DOG[3]], user_id="u1")
    assert again.raw_ids[0] == first.raw_ids[0]
    (answer,) = await client.engine.get_many(again.raw_ids[1:])
    assert answer[CONTEXT] == first.raw_ids[0]
    indexed = await _index_of(client, answer["id"])
    assert set(client.engine.bm25.document("dog").indices) <= set(indexed.sparse.indices)


async def _index_of(c: MemoryClient, atom_id: str):
    (point,) = await c.engine.store.retrieve("memories", [to_point_id(atom_id)], with_vectors=True)
    return point


@pytest.mark.parametrize("action", ["seal", "tombstone"])
async def test_a_sealed_turn_leaves_no_word_in_the_index_of_the_turn_after_it(either, action):
    written = await either.add(messages=DOG, user_id="u1")
    question, answer = written.raw_ids[2], written.raw_ids[3]
    own = dated_text("He's called Rex.", None)
    before = await _index_of(either, answer)
    assert before.sparse != either.engine.bm25.document(own)  # indexed with the question
    await either.govern(question, action, "private", user_id="u1")
    after = await _index_of(either, answer)
    # the answer's index is its own text again: no term of the sealed question is left
    assert after.sparse == either.engine.bm25.document(own)
    assert after.dense == pytest.approx(either.engine.embedder.vector(own))
    sealed_terms = set(either.engine.bm25.document("name dog tomato mostly").indices)
    assert not sealed_terms & set(after.sparse.indices)
    assert after.payload == before.payload  # the turn itself is unchanged
    # the turn after the answer still has the answer as its context
    third = await _index_of(either, written.raw_ids[4])
    assert set(either.engine.bm25.document("Rex").indices) <= set(third.sparse.indices)


def test_named_speakers_are_whole_words_and_naming_everyone_prefers_no_one():
    assert named("What did Alice paint?", {"Alice", "Bob"}) == {"Alice"}
    assert named("What did Alicent paint?", {"Alice", "Bob"}) == set()
    assert named("What do Alice and Bob share?", {"Alice", "Bob"}) == set()
    assert named("What did Alice paint?", {"Alice"}) == {"Alice"}  # all in sight may be hers
    assert named("小明上周去了哪里？", {"小明", "小红"}) == {"小明"}


def test_a_question_naming_everyone_prefers_the_one_it_asks_about():
    both = {"Alice", "Bob"}
    assert named("What did Alice say about Bob's painting?", both) == {"Alice"}
    assert named("What did Bob's sister give to Alice?", both) == set()  # neither is asked
    assert named("Is it likely that Bob has friends besides Alice?", both) == {"Bob"}
    assert named("How do Alice and Bob both relax?", both) == set()  # joined: neither
    assert named("Alice & Bob?", both) == set()
    assert named("What might Alice say Bob is like?", both) == set()  # both asked about
    assert named("小明和小红去了哪里？", {"小明", "小红"}) == set()


async def test_a_question_about_what_one_said_of_the_other_prefers_the_one_who_said_it(either):
    await either.add(
        messages=[
            {
                "role": "user",
                "name": "Bob",
                "content": "Bob: I finished my painting of the harbour.",
            },
            {"role": "assistant", "name": "Alice", "content": "Alice: The colours are lovely!"},
            {"role": "user", "name": "Bob", "content": "Bob: Thanks! Painting calms me, Alice."},
        ],
        user_id="u1",
    )
    question = "What did Alice say about Bob's painting?"
    turns = (await either.search_conversation(question, user_id="u1", limit=3)).turns
    assert turns[0].content == "Alice: The colours are lovely!"


def test_a_named_speakers_turn_climbs_and_nothing_is_lost():
    hits = [
        ({"id": "1", "speaker": "Bob"}, 1.0),
        ({"id": "2", "speaker": "Alice"}, 0.8),
        ({"id": "3", "speaker": "Bob"}, 0.6),
        ({"id": "4"}, 0.5),
    ]
    ranked = prefer_speakers("What did Alice paint?", hits, rrf_k=2)
    assert [p["id"] for p, _ in ranked] == ["2", "1", "3", "4"]
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert prefer_speakers("What did Carol paint?", hits, rrf_k=2) == hits


async def test_a_question_about_a_person_prefers_what_that_person_said(either):
    await either.add(
        messages=[
            {
                "role": "user",
                "name": "Bob",
                "content": "Bob: I painted a portrait of Alice, and Alice loved it.",
            },
            {
                "role": "assistant",
                "name": "Alice",
                "content": "Alice: Thanks! I finished a sunset painting.",
            },
            {"role": "user", "name": "Bob", "content": "Bob: We should hike next week."},
        ],
        user_id="u1",
    )
    turns = (await either.search_conversation("What did Alice paint?", user_id="u1", limit=3)).turns
    assert turns[0].content == "Alice: Thanks! I finished a sunset painting."


def test_a_question_is_searched_without_the_names_it_asks_about():
    assert without_names("What did Alice's brother paint?", {"Alice"}) == "What did brother paint?"
    assert without_names("When did ALICE paint?", {"Alice"}) == "When did paint?"
    assert without_names("What did Alicent paint?", {"Alice"}) == "What did Alicent paint?"
    assert without_names("小明上周去了哪里？", {"小明"}) == "上周去了哪里？"


def _queries_embedded(client) -> list[str]:
    """The texts ``client`` embeds as queries from now on, in order."""
    embedder, asked = client.engine.embedder, []
    original = embedder.embed_query

    async def spy(text):
        asked.append(text)
        return await original(text)

    embedder.embed_query = spy
    return asked


async def test_a_question_naming_a_participant_searches_what_it_asks_about(either):
    asked = _queries_embedded(either)
    await either.add(
        messages=[
            {"role": "user", "name": "Bob", "content": "Alice, Alice, how are you, Alice?"},
            {"role": "assistant", "name": "Alice", "content": "I painted a sunset by the lake."},
        ],
        user_id="u1",
    )
    turns = (await either.search_conversation("What did Alice paint?", user_id="u1")).turns
    assert asked == ["What did paint?"]  # only the text searched is embedded
    assert turns[0].content == "I painted a sunset by the lake."
    await either.search_conversation("What did Carol paint?", user_id="u1")
    assert asked[1:] == ["What did Carol paint?"]  # nobody named: the question as asked


async def test_a_participant_named_but_missed_by_the_word_probe_is_still_preferred(either):
    asked = _queries_embedded(either)
    await either.add(
        messages=[
            {"role": "assistant", "name": "Alice", "content": "Watercolours of the lake, mostly."},
            {"role": "user", "name": "Bob", "content": "Lovely, Alice. Pancakes here, Alice."},
        ],
        user_id="u1",
    )
    # Alice's turn (said first, so indexed alone) shares no word with the question: the only
    # turn the word probe finds is Bob's
    turns = (await either.search_conversation("What did Alice make?", user_id="u1")).turns
    # found among the turns of the first search, then searched for without her name
    assert asked == ["What did Alice make?", "What did make?"]
    assert turns[0].content == "Watercolours of the lake, mostly."


def test_a_turn_that_asks_is_a_question_whatever_follows_its_last_sentence():
    assert is_question("Did you go?")
    assert is_question("Wow! Did you go too? [shares a photo of a park]")
    assert is_question("你去了吗？")
    assert not is_question("Where? At the lake, last May.")
    assert not is_question("I went to the lake")


def test_the_answer_to_a_question_found_comes_right_after_it():
    question = {"id": "q", "content": "What's your dog called?"}
    other = {"id": "o", "content": "I walk him every day."}
    answer = {"id": "a", "content": "Rex, after my grandfather.", CONTEXT: "q"}
    reply = {"id": "r", "content": "Nice name!", CONTEXT: "a"}  # follows a statement
    hits = [(question, 1.0), (other, 0.8), (reply, 0.6), (answer, 0.5)]
    assert answers_follow(hits) == [(question, 1.0), (answer, 1.0), (other, 0.8), (reply, 0.6)]
    # an answer ranked above its question stays where it is, and nothing is lost or doubled
    assert answers_follow([(answer, 1.0), (question, 0.9)]) == [(answer, 1.0), (question, 0.9)]
    said = {"id": "s", "content": "I have a dog."}
    assert answers_follow([(said, 1.0), (other, 0.5)]) == [(said, 1.0), (other, 0.5)]


async def test_a_long_turn_is_a_document_indexed_alone(client):
    long = "We planned the release of version two. " * 60  # over CHAT_TURN characters
    written = await client.add(
        messages=[
            {"role": "user", "content": long + "zebra1 ends it."},
            {"role": "user", "content": long + "zebra2 ends it."},
            {"role": "assistant", "content": "Noted: zebra2."},
        ],
        user_id="u1",
    )
    first, second, reply = [await _index_of(client, i) for i in written.raw_ids]
    zebra1 = set(client.engine.bm25.document("zebra1").indices)
    assert zebra1 <= set(first.sparse.indices) and not zebra1 & set(second.sparse.indices)
    assert not set(client.engine.bm25.document("planned").indices) & set(reply.sparse.indices)
