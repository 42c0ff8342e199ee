"""Multi-session stories every adapter must tell right, and what the model may be shown after them.

A user says a fact in one session, the same fact again in a later session, then a changed
value; in a last session they ask about it. Some sessions are a single message, others are
several turns with a request, thanks or small talk between the facts. The memory block the
model sees then must show the new value, never the old one as current, no line twice and
no chatter as a memory. The stories are the same for every framework
(``tests/adapters/*/test_*_multi_session.py``), in English and Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

Said = str | tuple[str, ...]
"""What the user says in one session: one message, or the turns of a longer session."""


@dataclass(frozen=True)
class Story:
    """``said``: what the user says in each session; ``asked``: the question of the last one.

    After it the model must be shown every value of ``current``, and ``stale`` (if any)
    only on a line that also gives the new value, the first of ``current`` ("I left Alibaba
    and joined ByteDance"). ``retired`` was current once and is on no line at all (the old
    value said again: "I left Acme, now I'm at Globex" names the current Acme, yet is gone).
    ``chatter`` is said too but is no memory (a request, thanks, small talk): never shown
    as one.
    """

    said: tuple[Said, ...]
    asked: str
    current: tuple[str, ...]
    stale: str | None = None
    chatter: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()

    @property
    def sessions(self) -> tuple[tuple[str, ...], ...]:
        """The user's turns, session by session; the last session asks."""
        said = tuple(turns if isinstance(turns, tuple) else (turns,) for turns in self.said)
        return (*said, (self.asked,))

    @property
    def turns(self) -> int:
        return sum(len(turns) for turns in self.sessions)


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

# Longer sessions, the way people talk to an assistant: facts between a request, thanks
# and small talk; a later session repeats one fact and changes others.
STACK_EN = Story(
    (
        (
            "We use Vue 3 for the frontend and Go for the backend.",
            "Can you write me a debounce helper?",
            "Thanks, that's great!",
        ),
        (
            "Our backend is written in Go.",
            "Quick update: we switched the frontend to React.",
        ),
    ),
    "Which frontend framework do we use?",
    ("React",),
    "Vue 3",
    ("Can you write me a debounce helper?", "Thanks, that's great!"),
)
STACK_ZH = Story(
    (
        ("我们前端用 Vue 3，后端用 Go。", "帮我写个防抖函数", "谢谢！", "今天天气真好！"),
        ("我们后端是用 Go 写的。", "我们前端换成 React 了"),
    ),
    "我们前端用什么框架？",
    ("React",),
    "Vue",
    ("帮我写个防抖函数", "谢谢！", "今天天气真好"),
)
MANAGER_EN = Story(
    (
        ("My manager is Alice.", "Thanks, that helps!"),
        ("Bob is my new manager, Alice left the company.", "Do you think React is hard to learn?"),
    ),
    "Who is my manager?",
    ("Bob",),
    "Alice",
    ("Thanks, that helps!", "Do you think React is hard to learn?"),
)
MANAGER_ZH = Story(
    (
        ("我的领导是李明。", "谢谢，太棒了！"),
        ("王芳是我的新领导，李明离职了。", "你觉得 React 难学吗？"),
    ),
    "我的领导是谁？",
    ("王芳",),
    "李明",
    ("谢谢，太棒了！", "你觉得 React 难学吗？"),
)
GAVE_UP_EN = Story(
    (
        ("I'm learning Spanish in my spare time.", "Can you recommend a podcast?"),
        "I gave up on learning Spanish, too busy.",
    ),
    "Am I learning any languages?",
    ("gave up",),
    "spare time",
    ("Can you recommend a podcast?",),
)
GAVE_UP_ZH = Story(
    (("我业余时间在学西班牙语。", "推荐个播客吧"), "我不学西班牙语了，太忙了。"),
    "我在学什么语言吗？",
    ("不学",),
    "业余时间",
    ("推荐个播客吧",),
)
# A Chinese developer's memories name English tools: still Chinese, and shown as Chinese.
TECH_ZH = Story(
    (
        (
            "我们前端用 Vue 3 + TypeScript + Vite，后端用 Go + PostgreSQL 16。",
            "帮我写个防抖函数",
            "谢谢！",
        ),
        ("我们前端从 Vue 3 换成 React + Next.js 了", "部署在 AWS EKS 上，CI 用 GitHub Actions。"),
    ),
    "我们前端用什么框架？",
    ("React",),
    "Vite",
    ("帮我写个防抖函数", "谢谢！"),
)

# A change of one part of a memory keeps the rest: the role stays when the employer changes.
ROLE_EN = Story(
    ("I work at Acme as a data engineer.", "I left Acme, now I'm at Globex."),
    "Where do I work, and what do I do?",
    ("Globex", "data engineer"),
    "Acme",
)
ROLE_ZH = Story(
    ("我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动"),
    "我在哪里工作，做什么？",
    ("字节跳动", "产品经理"),
    "阿里巴巴",
)
# The latest statement about a slot wins, in either direction: the old value said again
# after a change is current again, and the change said again after that wins once more.
BACK_EN = Story(
    (
        ("I work at Acme as a data engineer.", "I left Acme, now I'm at Globex."),
        "I work at Acme as a data engineer.",
    ),
    "Where do I work?",
    ("Acme", "data engineer"),
    retired=("Globex",),
)
BACK_ZH = Story(
    (("我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动"), "我在阿里巴巴做产品经理"),
    "我在哪里工作？",
    ("阿里巴巴", "产品经理"),
    retired=("字节跳动",),
)
BACK_AGAIN_EN = Story(
    (
        ("I work at Acme as a data engineer.", "I left Acme, now I'm at Globex."),
        ("I work at Acme as a data engineer.", "I left Acme, now I'm at Globex."),
    ),
    "Where do I work?",
    ("Globex", "data engineer"),
    "Acme",
)
BACK_AGAIN_ZH = Story(
    (
        ("我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动"),
        ("我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动"),
    ),
    "我在哪里工作？",
    ("字节跳动", "产品经理"),
    "阿里巴巴",
)
# Small talk and requests whose cue is not the first word: a laugh before the weather, a
# request after its topic.
TALK_ZH = Story(
    (
        ("我住在杭州", "哈哈今天天气真好", "今晚晚饭推荐一下"),
        ("这个bug帮我看看", "我今天开始在字节上班"),
    ),
    "我住在哪里，在哪上班？",
    ("杭州", "字节"),
    chatter=("哈哈今天天气真好", "今晚晚饭推荐一下", "这个bug帮我看看"),
)
TALK_EN = Story(
    (
        ("I live in Portland.", "Haha the weather is so nice today", "Dinner tonight, any ideas"),
        (
            "This bug, can you take a look",
            "It's been raining at our new office in Seattle, we moved there in May.",
        ),
    ),
    "Where do I live, and where is our office?",
    ("Portland", "Seattle"),
    chatter=("Haha the weather is so nice today", "Dinner tonight, any ideas", "This bug"),
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
    pytest.param(STACK_EN, id="stack-en"),
    pytest.param(STACK_ZH, id="stack-zh"),
    pytest.param(MANAGER_EN, id="manager-en"),
    pytest.param(MANAGER_ZH, id="manager-zh"),
    pytest.param(GAVE_UP_EN, id="gave-up-en"),
    pytest.param(GAVE_UP_ZH, id="gave-up-zh"),
    pytest.param(TECH_ZH, id="tech-zh"),
    pytest.param(ROLE_EN, id="role-en"),
    pytest.param(ROLE_ZH, id="role-zh"),
    pytest.param(BACK_EN, id="back-en"),
    pytest.param(BACK_ZH, id="back-zh"),
    pytest.param(BACK_AGAIN_EN, id="back-again-en"),
    pytest.param(BACK_AGAIN_ZH, id="back-again-zh"),
    pytest.param(TALK_ZH, id="talk-zh"),
    pytest.param(TALK_EN, id="talk-en"),
]

# a memory line's date (a day, a month, a year or a week: ``valid_time.shown_date``) and the
# mark of one a newer memory on its subject may replace
_DATE = re.compile(
    r" \[(?:week of )?\d{4}(?:-\d{2}(?:-\d{2})?)?(?: 那周)?\]"
    r"(?: (?:\(older[^)]*\)|（较早[^）]*）))?$"
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_FIRST_PERSON = re.compile(r"(I|I'm|My|my|We|we|Our)\b|我")


def memory_lines(block: str) -> list[str]:
    """The memories of a rendered block (``- text [date]`` lines), without their dates."""
    return [_DATE.sub("", line[2:]) for line in block.splitlines() if line.startswith("- ")]


def _plain(text: str) -> str:
    return _NOT_A_WORD.sub("", text).lower()


_NOT_A_WORD = re.compile(r"[\W_]+")


def assert_current(block: str, story: Story) -> None:
    """What the model is shown after the story: the current values, the stale one only beside
    a current one, no memory twice and no chatter as a memory."""
    lines = memory_lines(block)
    for value in story.current:
        assert any(value in line for line in lines), f"{value!r} not shown:\n{block}"
    if story.stale:
        stale = [line for line in lines if story.stale in line and story.current[0] not in line]
        assert not stale, f"{story.stale!r} still shown as current: {stale}\n{block}"
    retired = [line for line in lines for value in story.retired if value in line]
    assert not retired, f"a value no longer true still shown: {retired}\n{block}"
    assert len(lines) == len(set(lines)), f"a memory is shown twice:\n{block}"
    chatter = [
        line
        for line in lines
        for said in story.chatter
        if _plain(said) in _plain(line) or _plain(line) in _plain(said)
    ]
    assert not chatter, f"a request, thanks or small talk shown as a memory: {chatter}\n{block}"
    chinese = bool(_HAN.search(story.asked))
    headings = [line for line in block.splitlines() if line.startswith("## ")]
    assert all(bool(_HAN.search(h)) == chinese for h in headings), (
        f"headings in another language:\n{block}"
    )


def assert_every_turn(shown: list[str], story: Story) -> None:
    """What the model is shown on each turn: at most one memory block, one that does not say
    its memories are from earlier sessions (every adapter adds a turn as it ends, so a turn's
    block holds what was said earlier in the same session too), and one that says who "I" is."""
    assert len(shown) == story.turns, f"{len(shown)} prompts for {story.turns} turns"
    for prompt in shown:
        headings = [line for line in prompt.splitlines() if line.startswith("## ")]
        assert len(headings) == len(set(headings)), f"a memory block shown twice:\n{prompt}"
        assert "earlier session" not in prompt, (
            f"memories said to be older than they are:\n{prompt}"
        )
        # Memories keep the user's words: "I" in a system prompt reads as the assistant.
        if any(_FIRST_PERSON.match(line) for line in memory_lines(prompt)):
            assert '"I"' in prompt or "“我”" in prompt, f"who 'I' is goes unsaid:\n{prompt}"
