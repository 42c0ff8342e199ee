"""Among turns that match a question about as well, the one that tells something comes first."""

from __future__ import annotations

from memhub.engine.conversation import CONTEXT
from memhub.engine.read.telling import TELLING_WEIGHT, prefer_telling, tells, words


def test_a_first_person_statement_tells_more_than_a_reaction_or_a_question():
    statement = tells("We went camping at the beach with the kids last summer.")
    reaction = tells("Wow, that's awesome!")
    question = tells("What do you love most about camping?")
    assert statement > reaction > question
    assert tells("我上周和孩子们去海边露营了。") > tells("你喜欢露营吗？")
    assert tells("Myself, I'd rather not.") > tells("Mythical creatures, mostly.")  # whole words


def test_length_counts_words_and_han_characters_alike():
    assert words("I went to the lake.") == 5
    assert words("我上周去了湖边。") == 3.5
    assert tells("I went. " * 40) == tells("I went. " * 20) == 2.0  # capped


def test_a_turn_that_tells_passes_one_that_asks_only_when_they_matched_about_as_well():
    asks = {"id": "a", "content": "What do you love most about camping?"}
    tells_ = {"id": "t", "content": "I took my kids camping at the beach last weekend, so fun."}
    other = {"id": "o", "content": "Sure."}
    best = {"id": "b", "content": "Camping, camping!"}
    close = prefer_telling([(best, 1.0), (asks, 0.9), (tells_, 0.8), (other, 0.5)], rrf_k=2)
    assert [p["id"] for p, _ in close] == ["b", "t", "a", "o"]
    far = [(asks, 1.0), (other, 0.9), (tells_, 0.7)]
    assert [p["id"] for p, _ in prefer_telling(far, rrf_k=2)][0] == "a"  # the first stays first
    scores = [s for _, s in close]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    assert prefer_telling([], rrf_k=2) == []
    assert TELLING_WEIGHT * 3 < 1 / 2 - 1 / 3  # the whole bonus never passes the first turn


async def test_a_question_about_a_chat_finds_the_turn_telling_it_before_the_one_asking(either):
    for said in (
        "Camping at the lake, camping at the lake!",
        "Camping at the lake, do you like it?",
    ):
        await either.add(messages=[{"role": "assistant", "content": said}], user_id="u1")
    await either.add(
        messages=[
            {
                "role": "user",
                "content": "I went camping at the lake with my kids and we stayed for a week.",
            }
        ],
        user_id="u1",
    )
    turns = (await either.search_conversation("camping at the lake", user_id="u1")).turns
    assert [t.content[:12] for t in turns] == [
        "Camping at t",
        "I went campi",
        "Camping at t",
    ]
    assert turns[1].content.startswith("I went camping")


def test_a_question_whose_answer_ranks_above_it_is_not_held_back_for_asking():
    answer = {"id": "a", "content": "He's called Rex.", CONTEXT: "q"}
    question = {"id": "q", "content": "Tomato, mostly. What's the name of your dog?"}
    aside = {"id": "h", "content": "Cute! I went hiking in the Alps last summer."}
    ranked = prefer_telling([(answer, 1.0), (question, 0.9), (aside, 0.8)], rrf_k=2)
    assert [p["id"] for p, _ in ranked] == ["a", "q", "h"]
    # not answered above it: the turn that tells passes it
    ranked = prefer_telling([(answer, 1.0), (dict(question, id="q2"), 0.9), (aside, 0.8)], 2)
    assert [p["id"] for p, _ in ranked] == ["a", "h", "q2"]
