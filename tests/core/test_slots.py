"""Attribute slots: which exclusive attribute of the user a statement fills."""

from __future__ import annotations

import pytest

from memhub.providers.heuristic import judge_item
from memhub.providers.slots import slot_keys
from memhub.providers.types import Candidate, JudgeItem, Neighbour


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("我住在上海", ["residence"]),
        ("The user lives in Berlin", ["residence"]),
        ("我今年从深圳调到杭州工作了", ["work_city"]),
        ("我在阿里巴巴做数据工程师", ["employer", "job"]),
        ("I work at Acme as a data engineer", ["employer", "job"]),
        ("I'm a data scientist at Globex", ["employer", "job"]),
        # where the user is now, after leaving a job
        ("I left Acme, now I'm at Globex", ["employer"]),
        ("我从阿里巴巴离职了，现在在字节跳动", ["employer"]),
        ("我已经从阿里离职了", ["employer"]),
        ("I joined Stripe this month", ["employer"]),
        ("I drive a 2015 Honda Civic", ["vehicle"]),
        ("我开的是大众帕萨特", ["vehicle"]),
        ("我用的手机是 iPhone 12", ["phone"]),
        ("我换了新手机，现在用华为 Mate 60", ["phone"]),
        ("I switched to a MacBook Pro M3", ["computer"]),
        ("I'm vegan", ["diet"]),
        ("我最喜欢的颜色是蓝色", ["favourite:colour"]),
        ("项目用 PostgreSQL 16 做主数据库", ["version:postgresql"]),
        ("站会改到周三上午10点", ["schedule:standup"]),
        ("Our team deploys on Fridays", ["schedule:deploy"]),
        ("The release is every Thursday", ["schedule:release"]),
        ("Bob is my new manager", ["manager"]),
        ("我的领导是李明", ["manager"]),
        ("My daughter just turned 6", ["age:my daughter"]),
        ("我女儿今年6岁了", ["age:我女儿"]),
    ],
)
def test_a_statement_is_typed_into_its_slot(text, slots):
    assert slot_keys(text) == slots


@pytest.mark.parametrize(
    "text",
    [
        "I also like Go",  # likes add up
        "My team is 5 people",  # a number is no age without years or "turned"
        "我也会说日语",  # skills add up
        "My wife drives a Tesla",  # someone else's car
        "I prefer it this way",  # a preference of no known kind
        "We had a great dinner",
    ],
)
def test_what_adds_up_or_is_someone_elses_fills_no_slot(text):
    assert slot_keys(text) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I drive a 2015 Honda Civic", "I sold the Civic and bought a Tesla Model 3"),
        ("我用的手机是 iPhone 12", "我换了新手机，现在用华为 Mate 60"),
        ("我在阿里巴巴做数据工程师", "我已经从阿里离职，加入了字节跳动"),
        ("我在深圳工作了三年", "我今年从深圳调到杭州工作了"),
        ("我每天早上喝咖啡", "我戒了咖啡"),
        ("I smoke about half a pack a day", "I quit smoking last month"),
    ],
)
def test_the_offline_judge_retires_the_old_value(old, new):
    item = JudgeItem(
        candidate=Candidate(text=new, layer="fact"),
        neighbours=[Neighbour(id="old", content=old, score=0.3, layer="profile")],
    )
    verdict = judge_item(item)
    assert (verdict.action, verdict.targets) == ("OVERRIDE", ["old"])


@pytest.mark.parametrize(
    ("said", "back"),
    [
        (
            ["I work at Acme as a data engineer", "I left Acme, now I'm at Globex"],
            "I work at Acme as a data engineer",
        ),
        (
            ["我在阿里巴巴做产品经理", "我从阿里巴巴离职了，现在在字节跳动"],
            "我在阿里巴巴做产品经理",
        ),
    ],
)
def test_the_old_value_said_again_overrides_the_change(said, back):
    """The latest statement about a slot wins in either direction: the old employer said
    again retires the change, and the role kept from the first statement with it."""
    first, change = said
    kept = "I'm a data engineer" if first.startswith("I") else "我是产品经理"
    item = JudgeItem(
        candidate=Candidate(text=back, layer="profile"),
        neighbours=[
            Neighbour(id="change", content=change, score=0.5, layer="profile"),
            Neighbour(id="kept", content=kept, score=0.5, layer="profile"),
        ],
    )
    verdict = judge_item(item)
    assert (verdict.action, sorted(verdict.targets)) == ("OVERRIDE", ["change", "kept"])


def test_a_memory_said_again_whole_is_still_a_noop():
    item = JudgeItem(
        candidate=Candidate(text="I work at Acme as a data engineer", layer="profile"),
        neighbours=[
            Neighbour(
                id="same", content="I work at Acme as a data engineer", score=1.0, layer="profile"
            )
        ],
    )
    assert judge_item(item).action == "NOOP"
