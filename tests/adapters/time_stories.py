"""Stories told over months, through every adapter, and what the model is shown at the end.

Each session happens on its own day (the clock is moved there: ``time_machine``), so
"last month" or 上周 is said against that day, the way a user lives with an assistant. After
the last session the memory block must show each current value as current (never marked
older), a value it replaced only marked as older or gone, a value that was added to rather
than replaced (a second child, a trip away from home) still current, and dates as the words
named them ("I moved to Montreal last month", said in September: ``[2026-08]``).
The stories are the same for every framework (``tests/adapters/*/test_*_time_stories.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

import pytest
import time_machine
from multi_session import memory_lines

OLDER = ("(older", "（较早")


@dataclass(frozen=True)
class TimedStory:
    """``sessions``: (day, the user's turns) in order; the last one asks ``asked`` on ``asked_on``.

    ``current``: values shown as current; ``stale``: a value replaced, shown only as older (or
    not at all); ``dated``: value -> the date shown beside it.
    """

    sessions: tuple[tuple[str, tuple[str, ...]], ...]
    asked_on: str
    asked: str
    current: tuple[str, ...]
    stale: str | None = None
    dated: tuple[tuple[str, str], ...] = ()

    @property
    def days(self) -> list[tuple[str, tuple[str, ...]]]:
        return [*self.sessions, (self.asked_on, (self.asked,))]

    @property
    def turns(self) -> int:
        return sum(len(turns) for _, turns in self.days)


def _s(*sessions: tuple[str, str | tuple[str, ...]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((day, turns if isinstance(turns, tuple) else (turns,)) for day, turns in sessions)


TIME_STORIES = [
    pytest.param(
        TimedStory(
            _s(
                ("2026-01-10 09:00", "I live in Toronto."),
                ("2026-09-15 09:00", "I moved to Montreal last month."),
            ),
            "2026-10-01 09:00",
            "Where do I live?",
            ("Montreal",),
            "Toronto",
            (("Montreal", "[2026-08]"),),
        ),
        id="move-en",
    ),
    pytest.param(
        TimedStory(
            _s(("2026-01-10 09:00", "我住在上海"), ("2026-09-15 09:00", "我上个月搬到北京了")),
            "2026-10-01 09:00",
            "我住在哪里？",
            ("北京",),
            "上海",
            (("北京", "[2026-08]"),),
        ),
        id="move-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-03-02 09:00", "I live in Lisbon."),
                ("2026-06-10 09:00", "I'm flying to Tokyo for a conference next week."),
            ),
            "2026-06-12 09:00",
            "Where do I live?",
            ("Lisbon",),
        ),
        id="trip-en",
    ),
    pytest.param(
        TimedStory(
            _s(("2026-03-02 09:00", "我住在成都"), ("2026-06-10 09:00", "我下周去杭州出差")),
            "2026-06-12 09:00",
            "我住在哪里？",
            ("成都",),
        ),
        id="trip-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-02-01 09:00", "I have a daughter named Mia."),
                ("2026-05-01 09:00", "I also have a son named Leo."),
            ),
            "2026-05-20 09:00",
            "Tell me about my kids.",
            ("Mia", "Leo"),
        ),
        id="sibling-en",
    ),
    pytest.param(
        TimedStory(
            _s(("2026-02-01 09:00", "我喜欢打篮球"), ("2026-05-01 09:00", "我也喜欢游泳")),
            "2026-05-20 09:00",
            "我有什么爱好？",
            ("篮球", "游泳"),
        ),
        id="sibling-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-04-07 09:00", "My manager is Alice."),
                ("2026-04-07 16:00", "Bob is my new manager, Alice left the company."),
            ),
            "2026-04-08 09:00",
            "Who is my manager?",
            ("Bob",),
            "Alice",
        ),
        id="same-day-en",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-04-07 09:00", "我用的手机是 iPhone 12"),
                ("2026-04-07 16:00", "我换了新手机，现在用华为 Mate 60"),
            ),
            "2026-04-08 09:00",
            "我用什么手机？",
            ("华为",),
            "iPhone",
        ),
        id="same-day-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-02-03 09:00", "I work at Acme."),
                ("2026-10-05 09:00", "I left Acme last month and joined Globex."),
            ),
            "2026-10-20 09:00",
            "Where do I work?",
            ("Globex",),
            "Acme",
            (("Globex", "[2026-09]"),),
        ),
        id="job-en",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2025-02-03 09:00", "我在阿里巴巴工作"),
                ("2026-03-05 09:00", "我去年从阿里离职，加入了字节跳动"),
            ),
            "2026-03-20 09:00",
            "我在哪里工作？",
            ("字节跳动",),
            "阿里巴巴",
            (("字节跳动", "[2025]"),),
        ),
        id="job-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-01-12 09:00", "My daughter is 5 years old."),
                ("2026-07-20 09:00", "My daughter just turned 6."),
            ),
            "2026-08-01 09:00",
            "How old is my daughter?",
            ("6",),
            "5 years",
        ),
        id="age-en",
    ),
    pytest.param(
        TimedStory(
            _s(("2026-01-12 09:00", "我女儿5岁"), ("2026-07-20 09:00", "我女儿6岁了")),
            "2026-08-01 09:00",
            "我女儿几岁？",
            ("6岁",),
            "5岁",
        ),
        id="age-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-01-12 09:00", "My favourite editor is VS Code."),
                ("2026-05-20 09:00", "These days my favourite editor is Neovim."),
            ),
            "2026-06-01 09:00",
            "Which editor do I like?",
            ("Neovim",),
            "VS Code",
        ),
        id="editor-en",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-01-12 09:00", "我最喜欢的编辑器是 VS Code"),
                ("2026-05-20 09:00", "我现在最喜欢的编辑器是 Neovim"),
            ),
            "2026-06-01 09:00",
            "我喜欢用什么编辑器？",
            ("Neovim",),
            "VS Code",
        ),
        id="editor-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2025-11-02 09:00", "I drive a Honda Civic."),
                ("2026-03-18 09:00", "I sold the Civic last week and bought a Tesla Model 3."),
            ),
            "2026-04-01 09:00",
            "What car do I drive?",
            ("Tesla",),
            "Honda",
            (("Tesla", "[week of 2026-03-09]"),),
        ),
        id="car-en",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2025-11-02 09:00", "我开比亚迪汉"),
                ("2026-03-18 09:00", "我上周把比亚迪卖了，买了一辆特斯拉 Model 3"),
            ),
            "2026-04-01 09:00",
            "我开什么车？",
            ("特斯拉",),
            "比亚迪汉",
        ),
        id="car-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2026-02-01 09:00", "项目用 PostgreSQL 16 做主数据库"),
                ("2026-08-10 09:00", "我们上个月把数据库升级到 PostgreSQL 17 了"),
            ),
            "2026-08-20 09:00",
            "数据库选型",
            ("PostgreSQL 17",),
            "PostgreSQL 16",
            (("PostgreSQL 17", "[2026-07]"),),
        ),
        id="upgrade-zh",
    ),
    pytest.param(
        TimedStory(
            _s(
                ("2025-06-01 09:00", "I'm vegetarian."),
                (
                    "2026-06-01 09:00",
                    "I'm not vegetarian anymore, I started eating fish three months ago.",
                ),
            ),
            "2026-06-10 09:00",
            "What do I eat?",
            ("fish",),
            "I'm vegetarian.",
        ),
        id="diet-en",
    ),
]


def _day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=None)


def run(story: TimedStory, session: Callable[[int, tuple[str, ...]], None]) -> None:
    """Each session of ``story`` on its day: ``session(number, turns)`` runs it."""
    for i, (day, turns) in enumerate(story.days, 1):
        with time_machine.travel(f"{day}Z", tick=True):
            session(i, turns)


async def arun(
    story: TimedStory, session: Callable[[int, tuple[str, ...]], Awaitable[None]]
) -> None:
    """``run`` for a framework whose sessions are awaited."""
    for i, (day, turns) in enumerate(story.days, 1):
        with time_machine.travel(f"{day}Z", tick=True):
            await session(i, turns)


def assert_shown(block: str, story: TimedStory) -> None:
    """The last prompt's memory block after ``story``."""
    lines = [line[2:] for line in block.splitlines() if line.startswith("- ")]
    plain = memory_lines(block)
    for value in story.current:
        now = [line for line in lines if value in line and not line.endswith(_older(line))]
        assert now, f"{value!r} not shown as current:\n{block}"
    if story.stale:
        current = [
            line
            for line, bare in zip(lines, plain, strict=True)
            if story.stale in bare
            and not any(v in bare for v in story.current)
            and not any(mark in line for mark in OLDER)
        ]
        assert not current, f"{story.stale!r} still shown as current: {current}\n{block}"
    for value, date in story.dated:
        assert any(value in line and date in line for line in lines), (
            f"{value!r} not dated {date}:\n{block}"
        )


def _older(line: str) -> str:
    return next((line[line.index(m) :] for m in OLDER if m in line), "\0")
