"""Talk by its shape: small talk, requests and questions whose cue is not the first word.

People put the topic first ("今晚晚饭推荐一下", "My resume, can you polish it"), open with a
laugh ("哈哈今天天气真好") and ask without a question mark after a lead-in ("Quick question
what time zone is Tokyo in"). None of that is a memory; the durable facts said the same way,
or beside such talk, are. Each utterance is written as one user's only message, through
the real write path, and what is stored is counted, as a user would see it in ``list``.
"""

from __future__ import annotations

import pytest

from memhub import MemoryClient
from memhub.providers import _talk as talk

NOISE = {
    "zh": [
        "哈哈今天天气真好",
        "今晚晚饭推荐一下",
        "这个bug帮我看看",
        "这段代码帮我优化一下",
        "周末去哪玩给点建议",
        "唉今天好累啊",
        "嘿嘿外面下雨了",
        "明天的天气帮我查一下",
        "这个报错你看看",
        "那个函数再解释解释",
        "这篇文章总结一下",
        "今天真是热死了",
        "话说这个接口该怎么调用",
        "哎呀今天好困",
        "晚上吃啥好呢",
        "这句英文翻译一下",
        "简历帮忙改改",
        "嗯嗯好的没问题",
        "今天下雨了好烦",
        "周报模板给我来一份",
        "这个需求，你帮我拆一下",
    ],
    "en": [
        "Haha the weather is so nice today",
        "Dinner tonight, any recommendations",
        "This bug, can you take a look",
        "So what do you think about Rust",
        "Ugh I'm so tired today",
        "The weather's been crazy lately huh",
        "Any idea what I should cook tonight",
        "This function, could you explain it again",
        "Man it's hot out there today",
        "That essay, summarise it for me",
        "Wondering what the best way to learn Go is",
        "Lol that's hilarious",
        "My resume, can you polish it a bit",
        "Okay cool thanks so much",
        "Quick question what time zone is Tokyo in",
        "Just curious how long it takes to boil an egg",
        "Weekend plans, suggest something fun",
        "This SQL query, help me speed it up",
        "Honestly I'm exhausted right now",
        "Rainy day again, so gloomy",
        "Dinner tonight, what should I cook",
    ],
}

# (what is said, a word the stored memory must keep)
FACTS = {
    "zh": [
        ("我今天开始在字节上班", "字节"),
        ("我住在杭州", "杭州"),
        ("我女儿今年5岁了", "5岁"),
        ("我对花生过敏", "花生"),
        ("我们团队用 Go 写后端", "Go"),
        ("我每天早上喝一杯美式咖啡", "美式"),
        ("哈哈我下个月要结婚了", "结婚"),
        ("今天天气不错，我刚搬到深圳", "深圳"),
        ("我的领导是王芳", "王芳"),
        ("我老家在成都", "成都"),
        ("我是一名前端工程师", "前端"),
        ("这个项目我们用的是 PostgreSQL 16", "PostgreSQL"),
        ("我周末一般去爬山", "爬山"),
        ("我不吃香菜", "香菜"),
        ("我老婆在腾讯做设计师", "腾讯"),
        ("我开的是比亚迪汉", "比亚迪"),
        ("我的猫叫橘子", "橘子"),
        ("我们每周三下午开周会", "周会"),
        ("唉最近好忙，我在准备考研", "考研"),
        ("这个bug我昨天已经修好了", "修好"),
        ("老板上周给我加薪了", "加薪"),
    ],
    "en": [
        ("It's been raining at our new office in Seattle, we moved there in May", "moved"),
        ("I live in Portland", "Portland"),
        ("I'm allergic to shellfish", "shellfish"),
        ("My daughter turned 7 last week", "7"),
        ("We use PostgreSQL 16 for the main database", "PostgreSQL"),
        ("Haha I finally got my driver's license", "license"),
        ("The weather is nice, and I just started a new job at Stripe", "Stripe"),
        ("I run 5k every morning", "5k"),
        ("My manager is Priya", "Priya"),
        ("I drive a Honda Civic", "Civic"),
        ("I'm a backend engineer", "backend"),
        ("I'm vegetarian", "vegetarian"),
        ("Our standup is at 9:30 every day", "9:30"),
        ("I speak Spanish and Portuguese", "Portuguese"),
        ("I'm so tired, I've been training for a marathon", "marathon"),
        ("I'm learning Japanese for a trip to Tokyo next year", "Japanese"),
        ("My wife works as a nurse at the city hospital", "nurse"),
        ("I have two cats named Miso and Tofu", "Miso"),
        ("I prefer tea over coffee", "tea"),
        ("I fixed the login bug yesterday", "login"),
        ("Last week when I visited Paris I loved the food", "Paris"),
    ],
}


async def _stored(client: MemoryClient, user: str, text: str) -> list[str]:
    await client.add(messages=[{"role": "user", "content": text}], user_id=user)
    return [m.content for m in await client.list(user_id=user)]


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_talk_by_its_shape_is_not_stored(client, lang):
    stored = {
        text: found
        for i, text in enumerate(NOISE[lang])
        if (found := await _stored(client, f"noise-{lang}-{i}", text))
    }
    assert len(NOISE[lang]) >= 20
    assert len(stored) <= 1, stored


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_facts_said_the_same_way_are_kept(client, lang):
    lost = {}
    for i, (text, word) in enumerate(FACTS[lang]):
        found = await _stored(client, f"fact-{lang}-{i}", text)
        if not any(word in memory for memory in found):
            lost[text] = found
    assert len(FACTS[lang]) >= 20
    assert len(lost) <= len(FACTS[lang]) - 19, lost


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # the talk goes, the fact said with it stays
        ("哈哈我下个月要结婚了", "我下个月要结婚了"),
        ("Haha I finally got my driver's license", "I finally got my driver's license"),
        ("唉最近好忙，我在准备考研", "我在准备考研"),
        # the weather's "it" needs no context, and "there" keeps its place
        (
            "It's been raining at our new office in Seattle, we moved there in May",
            "It's been raining at our new office in Seattle, we moved there in May",
        ),
    ],
)
async def test_what_is_kept_is_the_fact_without_the_talk(client, text, kept):
    assert await _stored(client, "u", text) == [kept]


@pytest.mark.parametrize(
    ("clause", "asking"),
    [
        ("今晚晚饭推荐一下", True),
        ("这个bug帮我看看", True),
        ("那个函数再解释解释", True),
        ("周报模板给我来一份", True),
        ("Quick question what time zone is Tokyo in", True),
        ("Any idea what I should cook tonight", True),
        # the same shapes, telling: a doubled word that is no doubled verb, what already
        # happened, the speaker's own habit, a wish of someone's own, a wh-word inside a story
        ("Lisa在艺术课上学习画画", False),
        ("最后告诉妈妈", False),
        ("老婆给我买了一块表", False),
        ("孩子的作业我每天都要检查一下", False),
        ("Lisa想休息一下", False),
        ("Uncle taught Lisa how to make a cake", False),
        ("Last week when I visited Paris I loved the food", False),
    ],
)
def test_a_request_is_read_off_the_clause_shape(clause, asking):
    assert talk.asks(clause) is asking
