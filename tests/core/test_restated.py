"""A changed value said in words no rule was written for (``memhub.providers.restated``).

Two sessions through the SDK with the bundled e5, as a user lives them: what was said first,
then a change said the way people say it. The old value must stop being current; and a later
statement that only looks like a change (it adds, it is about someone else, its new value is
of another kind) must leave the first one alone.
"""

from __future__ import annotations

import pytest

from memhub import MemoryClient
from memhub.providers.heuristic import _facts
from memhub.providers.restated import changed_value, same_person

CHANGED = [
    ("My main language at work is Java.", "These days I mostly write Kotlin at work.", "Java"),
    ("Our team uses Jira for tickets.", "We moved our tickets over to Linear.", "Jira"),
    ("I drive a Honda Civic.", "I traded in my Civic for a Tesla Model 3.", "drive a Honda"),
    ("I run 3 times a week.", "I'm down to running once a week now, knee problems.", "3 times"),
    ("We deploy on Fridays.", "We stopped deploying on Fridays, it's Tuesdays now.", "We deploy"),
    ("I work from home on Mondays.", "I now work from home on Wednesdays.", "Mondays"),
    ("The API is written in Flask.", "We rewrote the API in FastAPI.", "Flask"),
    ("Our sprint is two weeks long.", "Sprints are now three weeks long.", "two weeks"),
    ("我们前端用 Webpack 打包", "打包工具已经切到 Vite 了", "Webpack"),
    ("我现在用的手机是 iPhone 13", "我换了个华为 Mate 60，iPhone 送给我妈了", "iPhone 13"),
    ("我们公司在望京", "公司搬到亦庄了", "望京"),
    ("我们每天上午十点开站会", "站会现在改到下午两点了", "十点"),
    ("我每周打两次羽毛球", "现在一周只打一次羽毛球了", "两次"),
    ("我们的代码放在 GitLab 上", "代码仓库已经迁到 GitHub 了", "GitLab"),
    ("我们用 Jenkins 跑 CI", "CI 已经换成 GitLab CI 了", "Jenkins"),
    ("We monitor with Datadog.", "We dropped Datadog for Grafana last quarter.", "monitor with"),
    ("We use Vue 3 for the frontend.", "Quick update: we switched the frontend to React.", "Vue"),
    ("我老板是王总", "王总调走了，现在是李总带我们", "老板是王总"),
]

KEPT = [
    ("I like coffee.", "I also like green tea."),
    ("I moved to Munich in 2023.", "My parents moved to Munich too."),
    ("My daughter loves drawing.", "My daughter just started first grade."),
    ("I run 3 times a week.", "I now run with a friend from work."),
    ("My office is on the 5th floor.", "My office now has a standing desk."),
    ("We use Python 3.11 for the backend.", "We now run the backend on Kubernetes."),
    ("We have 2 backend engineers.", "We now have 3 backend services."),
    ("I work from home on Mondays.", "I now go to the gym on Wednesdays."),
    ("我们公司在望京", "公司最近在招人"),
    ("我在腾讯做产品经理", "我老婆最近跳槽到阿里了"),
    ("我每周打两次羽毛球", "我最近也开始跑步了"),
    ("我们用 MySQL 存订单", "我们现在用 Redis 做缓存"),
    ("My rent is 1800 dollars a month.", "Electricity is now 90 dollars a month."),
    ("我们的周报每周五交", "我们现在每周三开复盘会"),
]


async def _current(e5, tmp_path, first: str, later: str) -> list[str]:
    async with MemoryClient(storage_dir=tmp_path / "s", embed=e5, cwd=tmp_path) as client:
        await client.add(messages=[{"role": "user", "content": first}], user_id="u", session_id="a")
        await client.add(messages=[{"role": "user", "content": later}], user_id="u", session_id="b")
        return [m.content for m in await client.list(user_id="u")]


@pytest.mark.parametrize(("first", "change", "stale"), CHANGED)
async def test_a_value_changed_in_other_words_is_no_longer_current(
    e5, tmp_path, first, change, stale
):
    current = await _current(e5, tmp_path, first, change)
    assert not [m for m in current if stale in m], current
    assert len(current) == 1, current


@pytest.mark.parametrize(("first", "later"), KEPT)
async def test_a_statement_that_only_looks_like_a_change_keeps_the_first(
    e5, tmp_path, first, later
):
    current = await _current(e5, tmp_path, first, later)
    assert first.rstrip(".") in current, current
    assert len(current) == 2, current


def _changed(new: str, old: str) -> str | None:
    n, o = _facts(new), _facts(old)
    return changed_value(n.text, n.topic, o.text, o.topic)


def test_each_part_of_a_change_is_needed():
    old = "Our team uses Jira for tickets."
    assert _changed("We moved our tickets over to Linear.", old) == "value_change"
    # no cue that anything changed
    assert _changed("We keep our tickets in Linear.", old) is None
    # nothing shared but the values
    assert _changed("We moved our docs over to Linear.", old) is None
    # an addition, not a change
    assert _changed("We now also track tickets in Linear.", old) is None
    # a new value of another known kind: a language is not an orchestrator
    assert (
        _changed("We now run the backend on Kubernetes.", "We use Python for the backend.") is None
    )
    assert _changed("We now write the backend in Go.", "We use Python for the backend.") == (
        "value_change"
    )


def test_a_time_or_a_place_replaced_says_so():
    assert _changed("I now work from home on Wednesdays.", "I work from home on Mondays.") == (
        "schedule_change"
    )
    assert _changed("公司搬到亦庄了", "我们公司在望京") == "location_change"
    # "在" before a verb says what is going on, not where
    assert _changed("公司最近在招人", "我们公司在望京") is None


def test_a_statement_about_someone_else_is_theirs():
    assert not same_person("My parents moved to Munich too.", "I moved to Munich in 2023.")
    assert not same_person("Alice's manager is Tom.", "My manager is Alice.")
    assert not same_person("我老婆最近跳槽到阿里了", "我在腾讯做产品经理")
    # a manager is the user's own slot, however the sentence starts
    assert same_person("Bob is my new manager.", "My manager is Alice.")
    assert same_person("These days I mostly write Kotlin.", "My main language is Java.")
    # a product's name in capitals is not a person ("API", "CI")
    assert same_person("API 网关用 Kong", "听说 API 网关用 Kong")
    assert same_person("CI 已经换成 GitLab CI 了", "我们用 Jenkins 跑 CI")


def test_a_story_is_not_a_fact_whose_value_changed():
    # MADial's events: names, shared words and change cues everywhere, no value replaced
    told = "Lisa and her classmate Wang were cleaning the classroom together, but Wang kept "
    told += "looking for opportunities to slack off, which made Lisa very angry"
    later = "During class, Eddie secretly swapped Lisa's notebook with a doodle book, causing "
    later += "laughter among the classmates that made Lisa feel embarrassed and furious"
    assert _changed(later, told) is None
    assert (
        _changed(
            "Bart因为搬家到一个新城市感到孤独和闹心，但是交到了新朋友",
            "Bart从祖父那里收到了一块镀金的怀表",
        )
        is None
    )


# The same thing said again in other words, in a later session, is one memory; said a third
# time about another purpose or another person, it is a memory of its own.
REWORDED = [
    ("I live in Berlin.", "Berlin is where I live.", "My sister lives in Berlin."),
    (
        "We use PostgreSQL for the database.",
        "Our database is PostgreSQL.",
        "We use PostgreSQL for analytics.",
    ),
    ("Our frontend uses React.", "We use React for the frontend.", "Our admin panel uses React."),
    ("我们用 Redis 做缓存", "我们的缓存用的是 Redis", "我们用 Redis 做限流"),
    ("我们团队用飞书沟通", "我们团队沟通用飞书", "我们团队用飞书写文档"),
    ("我晚上一般看书", "我一般晚上看书", "我晚上一般跑步"),
]


async def _after(e5, tmp_path, *turns: str, store: str = "s") -> list[str]:
    async with MemoryClient(storage_dir=tmp_path / store, embed=e5, cwd=tmp_path) as client:
        for i, turn in enumerate(turns):
            await client.add(
                messages=[{"role": "user", "content": turn}], user_id="u", session_id=f"s{i}"
            )
        return sorted(m.content for m in await client.list(user_id="u"))


@pytest.mark.parametrize(("first", "again", "other"), REWORDED)
async def test_the_same_thing_said_in_other_words_is_one_memory(e5, tmp_path, first, again, other):
    current = await _after(e5, tmp_path, first, again, other)
    assert current == sorted([first.rstrip("."), other.rstrip(".")])


# Look-alikes: one word of content differs, the rest is the same wording.
LOOK_ALIKES = [
    ("We use PostgreSQL for analytics.", "We use PostgreSQL for the app."),
    ("I play tennis on Saturdays.", "I play football on Saturdays."),
    ("I teach Python on Mondays.", "I learn Python on Mondays."),
    ("We deploy the API on Fridays.", "We deploy the docs on Fridays."),
]


@pytest.mark.parametrize(("first", "later"), LOOK_ALIKES)
async def test_a_look_alike_with_another_word_of_content_is_kept(e5, tmp_path, first, later):
    current = await _after(e5, tmp_path, first, later)
    assert current == sorted([first.rstrip("."), later.rstrip(".")])


@pytest.mark.parametrize(
    ("first", "more"),
    [
        ("我们前端用 React", "我们前端用 React，后端用 Go"),
        ("We use React for the frontend.", "We use React and Tailwind for the frontend."),
    ],
)
async def test_a_known_statement_said_again_with_more_keeps_the_more(e5, tmp_path, first, more):
    # one memory that says all of it: the new part is neither dropped nor stored beside a copy
    assert await _after(e5, tmp_path, first, more) == [more.rstrip(".")]


@pytest.mark.parametrize(
    ("first", "since", "plan"),
    [
        ("我住在徐汇", "搬家以后我住在浦东了", "以后我打算搬到浦东"),
        ("我在阿里工作", "换了工作以后我在腾讯上班", "以后我想去腾讯工作"),
    ],
)
async def test_after_an_event_is_now_and_later_is_a_plan(e5, tmp_path, first, since, plan):
    # "X以后" says what has been true since X: the old value is no longer current
    assert await _after(e5, tmp_path, first, since, store="since") == [since]
    # "以后" at the start of the clause is a plan: the current value stays
    assert await _after(e5, tmp_path, first, plan, store="plan") == sorted([first, plan])
