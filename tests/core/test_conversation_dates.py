"""A question naming a day or a month finds what was said then (memhub.engine.dates)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from memhub.engine.dates import Span, asked_dates, said_within


def _days(question: str) -> list[tuple[str, str]]:
    return [(s.first.isoformat(), s.last.isoformat()) for s in asked_dates(question)]


def test_explicit_days_months_and_years_are_read_with_a_day_either_side():
    assert _days("What did Nate make on 9 November, 2022?") == [("2022-11-08", "2022-11-10")]
    assert _days("What book did Tim finish on 8th December, 2023?") == [
        ("2023-12-07", "2023-12-09")
    ]
    assert _days("Where was the picture shared on December 1,2023 taken?") == [
        ("2023-11-30", "2023-12-02")
    ]
    assert _days("what happened on 2024-02-29") == [("2024-02-28", "2024-03-01")]
    assert _days("What did I cook in November 2022?") == [("2022-10-31", "2022-12-01")]
    assert _days("How often did I swim in 2023?") == [("2022-12-31", "2024-01-01")]
    assert _days("我2023年5月8日说了什么？") == [("2023-05-07", "2023-05-09")]
    assert _days("我2023年12月做了什么？") == [("2023-11-30", "2024-01-01")]


def test_no_span_without_a_date_to_read():
    # "May" is a verb here, and a month without its year is every year's
    for question in (
        "May I ask what Caroline painted?",
        "When did Melanie go camping in June?",
        "What happened on 31 February, 2023?",
        "Which team has 2023 players?",
    ):
        assert asked_dates(question) == [], question


def test_a_relative_date_is_read_against_the_time_of_asking():
    asked = datetime(2026, 9, 15, 10, tzinfo=UTC)  # a Tuesday
    # Monday to Sunday of the week before, a day of slack either side
    assert asked_dates("What did I cook last week?", asked) == [
        Span(date(2026, 9, 6), date(2026, 9, 14))
    ]
    assert asked_dates("我去年在哪工作", asked) == [Span(date(2024, 12, 31), date(2026, 1, 1))]
    assert asked_dates("what did I do last May", asked) == [
        Span(date(2026, 4, 30), date(2026, 6, 1))
    ]


def test_a_day_is_not_read_again_as_its_month_or_year():
    assert asked_dates("on 3 June, 2023 and in August 2023") == [
        Span(date(2023, 6, 2), date(2023, 6, 4)),
        Span(date(2023, 7, 31), date(2023, 9, 1)),
    ]


def test_a_turn_is_dated_by_its_own_time_else_by_when_it_was_stored():
    june = asked_dates("on 3 June, 2023")
    assert said_within({"occurred_at": "2023-06-04T22:10:00+02:00"}, june)
    assert not said_within({"occurred_at": "2023-06-05T08:00:00"}, june)
    assert said_within({"created_at": "2023-06-03T09:00:00Z"}, june)
    assert not said_within(
        {"occurred_at": "2023-07-01T09:00:00", "created_at": "2023-06-03T09:00:00Z"}, june
    )
    assert not said_within({"occurred_at": "yesterday", "created_at": "2023-06-03"}, june)


COOKING = [
    ("2021-11-06T18:00:00", "I cooked a big pot of chili, cooking takes all day."),
    ("2021-11-20T18:00:00", "Cooking tonight: I cooked risotto, my favourite thing to cook."),
    ("2022-11-14T18:00:00", "I baked sourdough bread from scratch."),
    ("2022-12-24T18:00:00", "We cooked the Christmas dinner, so much cooking!"),
]


async def test_a_question_naming_a_month_finds_the_turn_said_then(either):
    for when, text in COOKING:
        await either.add(
            messages=[{"role": "user", "content": text, "timestamp": when}], user_id="u1"
        )
    # every other turn matches "cook" better, two of them "November" too (of 2021)
    found = await either.search_conversation("What did I cook in November 2022?", user_id="u1")
    assert found.turns[0].content == "I baked sourdough bread from scratch."
    # without a date the words decide
    found = await either.search_conversation("What did I cook?", user_id="u1")
    assert found.turns[0].content != "I baked sourdough bread from scratch."


async def test_a_turn_without_a_time_of_its_own_counts_from_when_it_was_stored(either):
    for when, text in COOKING:
        await either.add(
            messages=[{"role": "user", "content": text, "timestamp": when}], user_id="u1"
        )
    await either.add(messages=[{"role": "user", "content": "I grilled salmon."}], user_id="u1")
    today = datetime.now(UTC).date()
    question = f"What did I cook on {today.day} {today.strftime('%B')}, {today.year}?"
    found = await either.search_conversation(question, user_id="u1")
    assert found.turns[0].content == "I grilled salmon."
