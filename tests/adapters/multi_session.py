"""Multi-session stories every adapter must tell right, and what the model may be shown after them.

A user says one thing per session: a fact, the same fact again in a later session,
then a changed value; in a last session they ask about it. The memory block the
model sees then must show the new value, never the old one as current, and no line
twice. The stories are the same for every framework (``tests/adapters/*/test_*_multi_session.py``),
in English and Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Story:
    """``said``: the user's message of each session; ``asked``: the question of the last one.

    After it the model must be shown every value of ``current``, and ``stale`` (if any)
    only on a line that also gives a current value ("I left Alibaba and joined ByteDance").
    """

    said: tuple[str, ...]
    asked: str
    current: tuple[str, ...]
    stale: str | None = None

    @property
    def sessions(self) -> tuple[str, ...]:
        return (*self.said, self.asked)


def _changed(said: tuple[str, ...], asked: str, new: str, stale: str) -> Story:
    return Story(said, asked, (new,), stale)


MOVE_EN = _changed(
    ("I live in Berlin.", "I live in Berlin.", "I moved to Munich last month."),
    "Where do I live?",
    "Munich",
    "Berlin",
)
MOVE_ZH = _changed(
    ("我住在上海", "我住在上海", "我上个月搬到北京了"), "我住在哪里？", "北京", "上海"
)
JOB_EN = _changed(
    ("I work at Alibaba.", "I work at Alibaba.", "I left Alibaba and joined ByteDance."),
    "Where do I work?",
    "ByteDance",
    "Alibaba",
)
JOB_ZH = _changed(
    ("我在阿里巴巴工作", "我在阿里巴巴工作", "我已经从阿里离职，加入了字节跳动"),
    "我在哪里工作？",
    "字节跳动",
    "阿里",
)
CAR_EN = _changed(
    (
        "I drive a 2015 Honda Civic.",
        "I drive a 2015 Honda Civic.",
        "I sold the Civic and bought a Tesla Model 3.",
    ),
    "What car do I drive?",
    "Tesla",
    "Honda",
)
PHONE_ZH = _changed(
    ("我用的手机是 iPhone 12", "我用的手机是 iPhone 12", "我换了新手机，现在用华为 Mate 60"),
    "我用什么手机？",
    "华为",
    "iPhone",
)
# The same fact said in other words in a later session, then changed.
REWORDED_EN = _changed(
    ("I live in Berlin.", "My home is in Berlin.", "I moved to Munich last month."),
    "Where do I live?",
    "Munich",
    "Berlin",
)
REWORDED_ZH = _changed(
    ("我住在上海", "我家在上海", "我上个月搬到北京了"), "我住在哪里？", "北京", "上海"
)
# Things that add up: the later session adds a value, nothing is replaced.
CHILDREN_EN = Story(
    (
        "I have a daughter named Mia.",
        "I have a daughter named Mia.",
        "I also have a son named Leo.",
    ),
    "Tell me about my kids.",
    ("Mia", "Leo"),
)
HOBBIES_ZH = Story(
    ("我喜欢打篮球", "我喜欢打篮球", "我也喜欢游泳"), "我有什么爱好？", ("篮球", "游泳")
)

STORIES = [
    pytest.param(MOVE_EN, id="move-en"),
    pytest.param(MOVE_ZH, id="move-zh"),
    pytest.param(JOB_EN, id="job-en"),
    pytest.param(JOB_ZH, id="job-zh"),
    pytest.param(CAR_EN, id="car-en"),
    pytest.param(PHONE_ZH, id="phone-zh"),
    pytest.param(REWORDED_EN, id="reworded-en"),
    pytest.param(REWORDED_ZH, id="reworded-zh"),
    pytest.param(CHILDREN_EN, id="children-en"),
    pytest.param(HOBBIES_ZH, id="hobbies-zh"),
]

_DATE = re.compile(r" \[\d{4}-\d{2}-\d{2}\]$")


def memory_lines(block: str) -> list[str]:
    """The memories of a rendered block (``- text [date]`` lines), without their dates."""
    return [_DATE.sub("", line[2:]) for line in block.splitlines() if line.startswith("- ")]


def assert_current(block: str, story: Story) -> None:
    """What the model is shown after the story: the current values, the stale one only beside
    a current one, and no memory twice."""
    lines = memory_lines(block)
    for value in story.current:
        assert any(value in line for line in lines), f"{value!r} not shown:\n{block}"
    if story.stale:
        stale = [
            line
            for line in lines
            if story.stale in line and not any(v in line for v in story.current)
        ]
        assert not stale, f"{story.stale!r} still shown as current: {stale}\n{block}"
    assert len(lines) == len(set(lines)), f"a memory is shown twice:\n{block}"
