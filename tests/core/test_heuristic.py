"""The offline extractor and write judge: what gets remembered, and how a new statement
relates to what is already stored (Chinese and English)."""

from __future__ import annotations

import pytest

from memhub.providers.heuristic import (
    HeuristicExtractor,
    HeuristicJudge,
    extract_candidates,
    judge_item,
)
from memhub.providers.types import (
    Candidate,
    Extractor,
    Judge,
    JudgeItem,
    Message,
    Neighbour,
)


def _messages(*turns: str) -> list[Message]:
    """``"A:..."`` is an assistant turn, anything else a user turn; ids are m0, m1, ..."""
    return [
        Message(role="assistant", content=t[2:], id=f"m{i}")
        if t.startswith("A:")
        else Message(role="user", content=t, id=f"m{i}")
        for i, t in enumerate(turns)
    ]


def _extracted(*turns: str) -> list[tuple[str, str, bool]]:
    return [(c.text, c.layer, c.proactive) for c in extract_candidates(_messages(*turns))]


# -- Extractor ------------------------------------------------------------------------------

P, F = "profile", "fact"

EXTRACTION = [
    pytest.param(
        ["我住在上海", "A:好的，记住了", "下个月要搬去北京工作"],
        [("我住在上海", P, False), ("下个月要搬去北京工作", F, True)],
        id="zh-spec-example-profile-then-plan",
    ),
    pytest.param(["我叫张三"], [("我叫张三", P, False)], id="zh-name-is-profile"),
    pytest.param(
        ["我们的项目用 PostgreSQL 16"],
        [("我们的项目用 PostgreSQL 16", F, False)],
        id="zh-project-fact",
    ),
    pytest.param(
        ["周三下午3点要交季度报告，别忘了"],
        [("周三下午3点要交季度报告，别忘了", F, True)],
        id="zh-deadline-is-proactive",
    ),
    pytest.param(
        ["我住在上海，在字节跳动工作"],
        [("我住在上海", P, False), ("我在字节跳动工作", P, False)],
        id="zh-split-clauses-carry-subject",
    ),
    pytest.param(
        ["我最爱的编程语言是 Java，已经用了5年。"],
        [("我最爱的编程语言是 Java，已经用了5年", P, False)],
        id="zh-dependent-clause-stays-whole",
    ),
    pytest.param(
        ["我喜欢咖啡，也喜欢茶"],
        [("我喜欢咖啡", P, False), ("我也喜欢茶", P, False)],
        id="zh-split-two-likes",
    ),
    pytest.param(
        ["我住在上海，你呢？"], [("我住在上海", P, False)], id="zh-question-clause-dropped"
    ),
    pytest.param(["好的，我叫张三"], [("我叫张三", P, False)], id="zh-filler-prefix-stripped"),
    pytest.param(
        ["记住，我对花生过敏"], [("我对花生过敏", P, False)], id="zh-remember-wrapper-stripped"
    ),
    pytest.param(["你知道我住在哪里吗？", "我的名字是什么"], [], id="zh-questions-dropped"),
    pytest.param(["你好", "好的，记住了", "哈哈哈", "谢谢！"], [], id="zh-chitchat-dropped"),
    pytest.param(
        ["帮我写个函数，计算斐波那契数列", "请总结一下这段对话"], [], id="zh-commands-dropped"
    ),
    pytest.param(["上海", "嗯嗯"], [], id="zh-fragments-dropped"),
    pytest.param(
        ["I live in Paris. I work at Google as an engineer."],
        [("I live in Paris", P, False), ("I work at Google as an engineer", P, False)],
        id="en-split-sentences",
    ),
    pytest.param(
        ["I live in Berlin and work at SAP"],
        [("I live in Berlin", P, False), ("I work at SAP", P, False)],
        id="en-split-and-carry-subject",
    ),
    pytest.param(
        ["I like coffee and tea"],
        [("I like coffee and tea", P, False)],
        id="en-object-list-stays-whole",
    ),
    pytest.param(
        ["I have a dentist appointment next Friday"],
        [("I have a dentist appointment next Friday", F, True)],
        id="en-appointment-is-proactive",
    ),
    pytest.param(
        ["Remind me to renew my passport tomorrow"],
        [("Remind me to renew my passport tomorrow", F, True)],
        id="en-reminder-kept-not-a-command",
    ),
    pytest.param(
        ["We decided to use Python 3.12 for the backend"],
        [("We decided to use Python 3.12 for the backend", F, False)],
        id="en-decision-fact-version-not-split",
    ),
    pytest.param(
        ["What's my favourite colour?", "How do I configure nginx?", "Do you know where I live?"],
        [],
        id="en-questions-dropped",
    ),
    pytest.param(["hi", "ok thanks", "Thank you so much!", "lol"], [], id="en-chitchat-dropped"),
    pytest.param(
        [
            "please summarize this",
            "Can you translate this into French?",
            "Write a function that sorts",
        ],
        [],
        id="en-commands-dropped",
    ),
    pytest.param(
        ["Great, I moved to Berlin last month"],
        [("I moved to Berlin last month", P, False)],
        id="en-filler-prefix-stripped",
    ),
    pytest.param(
        ["Alice: Thanks, Bob!", "Alice: Hey Bob! Good to see you.", "Wow, Mel", "Alice: Yep"],
        [],
        id="en-small-talk-behind-a-speaker-label-or-to-a-name-dropped",
    ),
    pytest.param(
        ["Tim: Sure thing!", "Congrats, Mel!", "Definitely.", "No worries, take care", "Jon: Gina"],
        [],
        id="en-more-small-talk-and-a-bare-name-dropped",
    ),
    pytest.param(
        ["今天天气真好！", "今天天气不错", "Nice weather today!", "It's so hot out today."],
        [],
        id="weather-small-talk-dropped-in-both-languages",
    ),
    pytest.param(
        ["哈哈今天好累", "我好困啊", "I'm so tired today", "Ugh, I'm exhausted"],
        [],
        id="a-passing-state-is-small-talk-in-both-languages",
    ),
    pytest.param(
        [
            "我很忙，在赶项目",
            "I'm tired because the baby kept us up all night",
            "I'm tired of Java",
        ],
        [
            ("我在赶项目", F, False),
            ("I'm tired because the baby kept us up all night", F, False),
            ("I'm tired of Java", F, False),
        ],
        id="a-state-with-a-cause-or-an-object-stays-and-a-dropped-state-leaves-its-subject",
    ),
    pytest.param(
        ["帮我写个防抖函数，我们用的是 TypeScript。", "帮我翻译一下，谢谢"],
        [("我们用的是 TypeScript", F, False)],
        id="zh-a-fact-with-its-own-subject-after-a-request-kept",
    ),
    pytest.param(
        ["Our backend is written in Go, as I said.", "我们后端是用 Go 写的，之前说过。"],
        [("Our backend is written in Go", F, False), ("我们后端是用 Go 写的", F, False)],
        id="as-i-said-at-the-end-dropped",
    ),
    pytest.param(
        ["Sprints are now three weeks long.", "Those two functions look fine."],
        [("Sprints are now three weeks long", F, False)],
        id="en-a-count-in-words-is-specific-a-count-of-what-was-just-shown-is-not",
    ),
    pytest.param(
        [
            "Melanie: How was the trip, did you enjoy it?",
            "Jon: What did you paint, a sunset?",
            "What stack are we on again, and who's my manager?",
        ],
        [],
        id="en-a-question-split-at-a-comma-behind-a-speaker-label-dropped",
    ),
    pytest.param(
        [
            "Caroline: Melanie, that photo's amazing",
            "Caroline: That charity race sounds great, Mel",
            "Glad you had a blast at the concert",
            "You put so much effort and passion into it",
            "Must have been traumatizing for you guys",
            "It's great that you get to spend time with your family",
            "Caroline: It was awesome, Melanie",
            "你画得真好",
            "你的猫好可爱",
            "这张照片看起来真美",
        ],
        [],
        id="en-zh-reactions-to-the-listener-and-their-news-dropped",
    ),
    pytest.param(
        [
            "Caroline: Painting's great for expressing myself",
            "That photo is amazing, I took one like it in Kyoto",
            "It was inspiring and emotional - so many people wanted to adopt",
        ],
        [
            ("Caroline: Painting's great for expressing myself", F, False),
            ("I took one like it in Kyoto", F, False),  # the praise itself is no fact
            ("It was inspiring and emotional - so many people wanted to adopt", F, False),
        ],
        id="en-a-reaction-that-also-tells-of-the-speaker-kept",
    ),
    pytest.param(
        [
            "Btw I no longer drink coffee",
            "Hey, quick update: we moved the service to PostgreSQL 17",
            "对了，我下周要去杭州出差",
        ],
        [
            ("I no longer drink coffee", F, False),
            ("We moved the service to PostgreSQL 17", F, False),
            ("我下周要去杭州出差", F, True),
        ],
        id="en-zh-an-aside-that-only-announces-the-fact-is-not-part-of-it",
    ),
    pytest.param(
        ["I'm Dana, a backend engineer at Fintory.", "我叫小林，杭州的前端工程师"],
        [
            ("I'm Dana", P, False),
            ("I'm a backend engineer at Fintory", P, False),
            ("我叫小林", P, False),
            ("我是杭州的前端工程师", P, False),
        ],
        id="en-zh-a-name-then-what-the-speaker-is-are-two-statements",
    ),
    pytest.param(
        ["Sam and I broke up last month."],
        [("Sam and I broke up last month", F, False)],
        id="en-a-name-in-a-compound-subject-stays-with-it",
    ),
    pytest.param(
        ["Thanks for sharing it with me.", "Thanks so much for the tip, I'll try vim tomorrow."],
        [("I'll try vim tomorrow", F, True)],
        id="en-thanks-for-dropped-whole-not-left-as-a-fragment",
    ),
    pytest.param(
        ["I painted this last week. [shares a photo of a sunset over a lake]", "(laughs)"],
        [("I painted this last week", F, False)],
        id="en-bracketed-annotation-dropped",
    ),
    pytest.param(
        [
            "A:So you decided to migrate to PostgreSQL 17.",
            "A:I'll remember that you live in Paris.",
        ],
        [],
        id="assistant-restating-a-decision-not-extracted",
    ),
]


@pytest.mark.parametrize(("turns", "expected"), EXTRACTION)
def test_extract(turns: list[str], expected: list[tuple[str, str, bool]]) -> None:
    assert _extracted(*turns) == expected


def test_extract_keeps_source_ids_and_merges_duplicates() -> None:
    out = extract_candidates(_messages("我住在上海", "A:好的", "我住在上海。", "I work at SAP"))
    assert [(c.text, c.source_ids) for c in out] == [
        ("我住在上海", ["m0", "m2"]),
        ("I work at SAP", ["m3"]),
    ]


def test_extract_split_clauses_share_the_message_id() -> None:
    out = extract_candidates(_messages("我住在上海，在字节跳动工作"))
    assert [c.source_ids for c in out] == [["m0"], ["m0"]]


def test_extract_without_ids_gives_empty_source_ids() -> None:
    out = extract_candidates([Message(role="user", content="I live in Paris")])
    assert out[0].source_ids == []


async def test_extractor_and_judge_satisfy_the_protocols() -> None:
    extractor, judge = HeuristicExtractor(), HeuristicJudge()
    assert isinstance(extractor, Extractor) and isinstance(judge, Judge)
    assert HeuristicJudge.free  # the write path shows a free judge weaker neighbours too
    out = await extractor.extract(_messages("我叫张三"))
    assert [c.text for c in out] == ["我叫张三"]


# -- Judge --------------------------------------------------------------------------------


def _item(candidate: str, *neighbours: tuple[str, float]) -> JudgeItem:
    return JudgeItem(
        candidate=Candidate(text=candidate, layer="fact"),
        neighbours=[
            Neighbour(id=f"n{i}", content=content, score=score, layer="fact")
            for i, (content, score) in enumerate(neighbours, start=1)
        ],
    )


def J(candidate, neighbours, action, targets=(), update_type=None, *, id):  # noqa: N802
    return pytest.param(candidate, neighbours, action, list(targets), update_type, id=id)


JUDGE = [
    # Chinese
    J("我住在上海", [], "ADD", id="zh-no-neighbours-add"),
    J("我住在上海", [("我住在上海。", 0.95)], "NOOP", ["n1"], "duplicate", id="zh-exact-duplicate"),
    J(
        "我现在住在上海",
        [("我住在上海", 0.92)],
        "NOOP",
        ["n1"],
        "duplicate",
        id="zh-near-duplicate",
    ),
    J(
        "我住在上海",
        [("我住在上海，在字节跳动工作", 0.85)],
        "NOOP",
        ["n1"],
        "duplicate",
        id="zh-already-covered-by-longer-memory",
    ),
    J(
        "我搬到北京了",
        [("我住在上海", 0.78)],
        "OVERRIDE",
        ["n1"],
        "location_change",
        id="zh-moved-city",
    ),
    J(
        "我现在住在北京",
        [("我住在上海", 0.86)],
        "OVERRIDE",
        ["n1"],
        "location_change",
        id="zh-now-lives-elsewhere",
    ),
    J(
        "我跳槽到阿里巴巴了",
        [("我在字节跳动工作", 0.74)],
        "OVERRIDE",
        ["n1"],
        "job_change",
        id="zh-employer-change",
    ),
    J(
        "我现在是产品经理",
        [("我是一名后端工程师", 0.7)],
        "OVERRIDE",
        ["n1"],
        "role_change",
        id="zh-job-title-change",
    ),
    J(
        "我现在最喜欢 Python",
        [("我最爱的编程语言是 Java，已经用了5年", 0.81)],
        "OVERRIDE",
        ["n1"],
        "preference_change",
        id="zh-favourite-language-change",
    ),
    J(
        "项目升级到 PostgreSQL 17 了",
        [("项目数据库用的是 PostgreSQL 16", 0.88)],
        "OVERRIDE",
        ["n1"],
        "version_change",
        id="zh-version-change",
    ),
    J(
        "数据库升级到 17 了",
        [("数据库用的是 PostgreSQL 16", 0.72)],
        "OVERRIDE",
        ["n1"],
        "version_change",
        id="zh-version-number-without-product",
    ),
    J(
        "开会改到周五了",
        [("每周三开会", 0.76)],
        "OVERRIDE",
        ["n1"],
        "schedule_change",
        id="zh-meeting-day-moved",
    ),
    J(
        "站会从9点改到10点",
        [("每天早上9点开站会", 0.8)],
        "OVERRIDE",
        ["n1"],
        "schedule_change",
        id="zh-standup-time-moved",
    ),
    J(
        "项目截止日期改到 12月20日",
        [("项目截止日期是 12月15日", 0.9)],
        "OVERRIDE",
        ["n1"],
        "schedule_change",
        id="zh-deadline-moved",
    ),
    J(
        "把 Jenkins 换成 GitHub Actions 了",
        [("CI 用的是 Jenkins", 0.73)],
        "OVERRIDE",
        ["n1"],
        "tool_replaced",
        id="zh-tool-replaced-ba",
    ),
    J(
        "不用 MySQL 了，改用 PostgreSQL",
        [("后端数据库用 MySQL", 0.77)],
        "OVERRIDE",
        ["n1"],
        "tool_replaced",
        id="zh-tool-replaced-no-longer",
    ),
    J(
        "我改名叫李四了",
        [("我叫张三", 0.69)],
        "OVERRIDE",
        ["n1"],
        "name_change",
        id="zh-name-change",
    ),
    J(
        "我现在养了三只猫",
        [("我养了两只猫", 0.9)],
        "OVERRIDE",
        ["n1"],
        "value_change",
        id="zh-count-change",
    ),
    J(
        "房租涨到每月6000了",
        [("房租每月5000", 0.83)],
        "OVERRIDE",
        ["n1"],
        "value_change",
        id="zh-amount-change",
    ),
    J(
        "我不喜欢咖啡了",
        [("我喜欢咖啡", 0.87)],
        "OVERRIDE",
        ["n1"],
        "negation",
        id="zh-preference-negated",
    ),
    J("我也会 Go", [("我会 Java", 0.75)], "SUPPLEMENT", ["n1"], "complement", id="zh-second-skill"),
    J(
        "我在上海工作",
        [("我住在上海", 0.8)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="zh-works-where-lives",
    ),
    J(
        "我也喜欢喝茶",
        [("我喜欢喝咖啡", 0.78)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="zh-second-drink",
    ),
    J(
        "下个月要搬去北京",
        [("我住在上海", 0.71)],
        "SUPPLEMENT",
        ["n1"],
        "planned_change",
        id="zh-planned-move-does-not-override",
    ),
    J(
        "我们打算把 Jenkins 换成 GitHub Actions",
        [("CI 用的是 Jenkins", 0.7)],
        "SUPPLEMENT",
        ["n1"],
        "planned_change",
        id="zh-planned-replacement-does-not-override",
    ),
    J(
        "我2024年去了日本",
        [("我2023年去了日本", 0.9)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="zh-trips-in-different-years-both-stay",
    ),
    J("我养了一只猫", [("我在字节跳动工作", 0.62)], "ADD", id="zh-unrelated-neighbour"),
    J(
        "它换成了 17",
        [("项目数据库用的是 PostgreSQL 16", 0.66)],
        "NEED_CONTEXT",
        id="zh-pronoun-subject",
    ),
    J("这个比那个好", [], "NEED_CONTEXT", id="zh-demonstratives-only"),
    J("？？？", [("我住在上海", 0.6)], "INVALID", id="zh-punctuation-only"),
    J("你住在哪里？", [("我住在上海", 0.8)], "INVALID", id="zh-question"),
    # English
    J("I live in Paris", [], "ADD", id="en-no-neighbours-add"),
    J(
        "I live in Paris",
        [("I live in Paris.", 0.95)],
        "NOOP",
        ["n1"],
        "duplicate",
        id="en-exact-duplicate",
    ),
    J(
        "I really like coffee",
        [("I like coffee", 0.93)],
        "NOOP",
        ["n1"],
        "duplicate",
        id="en-near-duplicate",
    ),
    J(
        "I live in Paris",
        [("The user lives in Paris", 0.9)],
        "NOOP",
        ["n1"],
        "duplicate",
        id="en-third-person-memory-duplicate",
    ),
    J(
        "I moved to Berlin",
        [("I live in Paris", 0.77)],
        "OVERRIDE",
        ["n1"],
        "location_change",
        id="en-moved-city",
    ),
    J(
        "I now work at Google",
        [("I work at Microsoft", 0.82)],
        "OVERRIDE",
        ["n1"],
        "job_change",
        id="en-employer-change",
    ),
    J(
        "I'm now a product manager",
        [("I am a software engineer", 0.72)],
        "OVERRIDE",
        ["n1"],
        "role_change",
        id="en-job-title-change",
    ),
    J(
        "My favourite colour is now green",
        [("My favourite colour is blue", 0.9)],
        "OVERRIDE",
        ["n1"],
        "preference_change",
        id="en-favourite-colour-change",
    ),
    J(
        "We upgraded to Python 3.12",
        [("The project runs on Python 3.11", 0.8)],
        "OVERRIDE",
        ["n1"],
        "version_change",
        id="en-version-change",
    ),
    J(
        "The standup moved to 10am",
        [("Daily standup is at 9am", 0.84)],
        "OVERRIDE",
        ["n1"],
        "schedule_change",
        id="en-standup-time-moved",
    ),
    J(
        "The weekly sync moved to Thursday",
        [("The weekly sync is on Tuesdays", 0.85)],
        "OVERRIDE",
        ["n1"],
        "schedule_change",
        id="en-sync-day-moved",
    ),
    J(
        "We migrated from MySQL to Postgres",
        [("Our main database is MySQL", 0.74)],
        "OVERRIDE",
        ["n1"],
        "tool_replaced",
        id="en-migrated-database",
    ),
    J(
        "I switched from vim to neovim",
        [("I use vim as my editor", 0.79)],
        "OVERRIDE",
        ["n1"],
        "tool_replaced",
        id="en-switched-editor",
    ),
    J(
        "I no longer use Jenkins, we use GitHub Actions now",
        [("Our CI runs on Jenkins", 0.7)],
        "OVERRIDE",
        ["n1"],
        "tool_replaced",
        id="en-no-longer-use",
    ),
    J(
        "I changed my name to Robert",
        [("My name is Bob", 0.68)],
        "OVERRIDE",
        ["n1"],
        "name_change",
        id="en-name-change",
    ),
    J(
        "The team now has 8 engineers",
        [("The team has 5 engineers", 0.91)],
        "OVERRIDE",
        ["n1"],
        "value_change",
        id="en-count-change",
    ),
    J(
        "I don't like coffee anymore",
        [("I like coffee", 0.86)],
        "OVERRIDE",
        ["n1"],
        "negation",
        id="en-preference-negated",
    ),
    J(
        "I like tea",
        [("I like coffee", 0.83)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="en-second-drink",
    ),
    J(
        "I work in Shanghai",
        [("I live in Shanghai", 0.8)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="en-works-where-lives",
    ),
    J(
        "I also speak French",
        [("I speak English", 0.76)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="en-second-language",
    ),
    J(
        "I switched from vim to neovim",
        [("I use neovim for Go", 0.75)],
        "SUPPLEMENT",
        ["n1"],
        "complement",
        id="en-vim-is-not-found-inside-neovim",
    ),
    J(
        "I plan to move to Berlin next year",
        [("I live in Paris", 0.7)],
        "SUPPLEMENT",
        ["n1"],
        "planned_change",
        id="en-planned-move-does-not-override",
    ),
    J("I have a dog named Max", [("I work at Google", 0.61)], "ADD", id="en-unrelated-neighbour"),
    J(
        "My favourite food is pizza",
        [("My favourite colour is blue", 0.74)],
        "ADD",
        id="en-different-favourites-do-not-conflict",
    ),
    J(
        "That one is better",
        [("I use vim as my editor", 0.6)],
        "NEED_CONTEXT",
        id="en-pronoun-subject",
    ),
    J("???", [("I live in Paris", 0.6)], "INVALID", id="en-punctuation-only"),
    J("What is my name?", [("My name is Bob", 0.8)], "INVALID", id="en-question"),
    # Several neighbours: only the conflicting or related ones are targeted
    J(
        "I moved to Berlin",
        [("I work at Google", 0.7), ("I live in Paris", 0.65)],
        "OVERRIDE",
        ["n2"],
        "location_change",
        id="en-override-picks-the-conflicting-neighbour",
    ),
    J(
        "我搬到北京了",
        [("我养了一只猫", 0.64), ("我住在上海", 0.9), ("我住在上海，在字节跳动工作", 0.8)],
        "OVERRIDE",
        ["n2", "n3"],
        "location_change",
        id="zh-override-targets-every-conflicting-neighbour",
    ),
    J(
        "我住在上海",
        [("我住在上海", 0.95), ("我在上海工作", 0.8)],
        "NOOP",
        ["n1"],
        "duplicate",
        id="zh-duplicate-wins-over-related",
    ),
    # Changes that name their new value in other words than the stored one
    J(
        "We switched the frontend from Vue 3 to React",
        [("We use Vue 3 for the frontend", 0.8)],
        "OVERRIDE",
        ["n1"],
        "tool_replaced",
        id="en-a-replaced-version-named-again-to-retire-it-is-no-restatement",
    ),
    J(
        "Bob is my new manager",
        [("My manager is Alice", 0.7)],
        "OVERRIDE",
        ["n1"],
        "manager_change",
        id="en-new-manager",
    ),
    J(
        "王芳是我的新领导",
        [("我的领导是李明", 0.7)],
        "OVERRIDE",
        ["n1"],
        "manager_change",
        id="zh-new-manager",
    ),
    J(
        "My daughter just turned 6",
        [("My daughter is 5 years old", 0.7)],
        "OVERRIDE",
        ["n1"],
        "age_change",
        id="en-age-of-the-same-person",
    ),
    J(
        "My son just turned 6",
        [("My daughter is 5 years old", 0.7)],
        "ADD",
        [],
        None,
        id="en-age-of-another-person-is-no-change",
    ),
    J("我女儿今年6岁了", [("我女儿5岁", 0.7)], "OVERRIDE", ["n1"], "age_change", id="zh-age"),
    J(
        "We stopped deploying on Fridays, deploys are on Tuesdays now",
        [("Our team deploys on Fridays", 0.7)],
        "OVERRIDE",
        ["n1"],
        "schedule_change",
        id="en-deploy-day-moved",
    ),
    J(
        "I gave up on Spanish",
        [("I'm learning Spanish", 0.7)],
        "OVERRIDE",
        ["n1"],
        "no_longer",
        id="en-gave-up-on",
    ),
    J(
        "我和小雨分手了",
        [("我女朋友叫小雨", 0.6)],
        "OVERRIDE",
        ["n1"],
        "no_longer",
        id="zh-broke-up",
    ),
    J(
        "最近膝盖受伤，不跑步了",
        [("我每天跑步五公里", 0.6)],
        "OVERRIDE",
        ["n1"],
        "no_longer",
        id="zh-a-habit-given-up-next-to-a-number",
    ),
    J(
        "我现在改喝拿铁了",
        [("我喜欢喝美式咖啡", 0.6)],
        "OVERRIDE",
        ["n1"],
        "preference_change",
        id="zh-switched-to-another-drink",
    ),
    J(
        "I switched to drinking green tea",
        [("I drink coffee every morning", 0.6)],
        "OVERRIDE",
        ["n1"],
        "preference_change",
        id="en-switched-to-another-drink",
    ),
    J(
        "我也喜欢喝茶",
        [("我喜欢喝美式咖啡", 0.6)],
        "SUPPLEMENT",
        ["n1"],
        None,
        id="zh-a-second-drink-adds-up",
    ),
    J(
        "I switched to using Neovim",
        [("Please help us with the migration", 0.6)],
        "ADD",
        [],
        None,
        id="en-a-switch-of-use-is-not-found-in-us",
    ),
]


@pytest.mark.parametrize(("candidate", "neighbours", "action", "targets", "update_type"), JUDGE)
def test_judge(candidate, neighbours, action, targets, update_type) -> None:
    verdict = judge_item(_item(candidate, *neighbours))
    assert (verdict.action, verdict.targets) == (action, targets), verdict.reason
    if update_type is not None:
        assert verdict.update_type == update_type


async def test_judge_decides_all_candidates_of_a_write_in_one_call_in_order() -> None:
    items = [
        _item("我住在上海", ("我住在上海", 0.95)),
        _item("I moved to Berlin", ("I live in Paris", 0.8)),
        _item("我也会 Go", ("我会 Java", 0.75)),
        _item("I have a dog named Max"),
        _item("它换成了 17", ("PostgreSQL 16", 0.7)),
        _item("？"),
    ]
    verdicts = await HeuristicJudge().judge(items)
    assert [(v.action, v.targets) for v in verdicts] == [
        ("NOOP", ["n1"]),
        ("OVERRIDE", ["n1"]),
        ("SUPPLEMENT", ["n1"]),
        ("ADD", []),
        ("NEED_CONTEXT", []),
        ("INVALID", []),
    ]
    assert all(v.reason for v in verdicts)


async def test_extracted_candidates_judge_against_the_spec_conversation() -> None:
    """The spec's example: a stored city, then a move announced for next month."""
    candidates = await HeuristicExtractor().extract(
        _messages("我住在上海", "A:好的，记住了", "下个月要搬去北京工作")
    )
    stored = Neighbour(id="m-city", content="我住在上海", score=0.72, layer="profile")
    verdicts = await HeuristicJudge().judge(
        [JudgeItem(candidate=c, neighbours=[stored]) for c in candidates]
    )
    assert [(v.action, v.targets) for v in verdicts] == [
        ("NOOP", ["m-city"]),
        ("SUPPLEMENT", ["m-city"]),  # a plan: Shanghai is still current
    ]
