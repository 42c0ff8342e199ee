"""Attribute slots: which exclusive attribute of the user a statement fills.

A person lives in one place, works for one employer, drives one car and uses one
phone at a time. Two statements that fill the same exclusive slot with different
values cannot both be current: the newer one overrides. The write pipeline types
every candidate memory into its slots and stores them on the memory (payload key
``slots``), so a new statement finds the memory it changes by its slot, however
differently it is worded and whichever session said it — the embedder's similarity
alone misses "I moved to Munich" against "I live in Berlin" among many memories.

The slots come from the attribute table of the offline judge
(``memhub.providers._heuristic_patterns.ATTRIBUTES``), in Chinese and English:

========================  ============================================================
slot                      filled by (examples)
========================  ============================================================
``name``                  我叫…, my name is…, call me…
``residence``             我住在…, 搬到…, I live in…, I moved to…
``work_city``             在上海工作, 调到杭州, I work in…
``employer``              在字节跳动工作, 加入了…, 在阿里巴巴做工程师, I work at…, I joined…,
                          离职了，现在在…, I left Acme, now I'm at…
``job``                   我是产品经理, I'm a data engineer, my role is…, 在阿里巴巴做产品经理,
                          I work at Acme as a data engineer (one sentence, two slots)
``vehicle``               我开比亚迪汉, I drive a Honda Civic, bought a Tesla Model 3
``phone``                 我用的手机是 iPhone 12, 现在用华为 Mate 60, my phone is a Pixel 8
``computer``              MacBook Pro, ThinkPad X1, …
``diet``                  我吃素, I'm vegan
``manager``               我的领导是…, 王芳是我的新领导, my manager is…, Bob is my new boss
``age:<who>``             我女儿5岁, my daughter just turned 6, I'm 30 years old
``favourite:<what>``      最喜欢的颜色是…, my favourite editor is…
``preference:<what>``     更喜欢…, I prefer… (only with a known kind: language, drink, editor…)
``schedule:<event>``      站会改到周三, the standup moved to 10am, deploys are on Tuesdays
``version:<product>``     PostgreSQL 16, Python 3.12
========================  ============================================================

Attributes whose values add up (likes, skills) are not slots: "我也喜欢 Go" stays beside
"我喜欢 Python". To add a slot, add a row to ``ATTRIBUTES`` (a key, an update type and
patterns with a named ``value`` group, optionally a ``slot`` group), with a test in
``tests/core/test_slots.py``; a value lexicon (like ``_VEHICLE``) lets the value name
the kind when the wording does not.
"""

from __future__ import annotations

from memhub.providers import _heuristic_patterns as P

__all__ = ["slot_keys"]


def slot_keys(text: str) -> list[str]:
    """The exclusive slots ``text`` fills, e.g. ``["residence"]`` or ``["version:postgresql"]``.

    Example:
        >>> slot_keys("我用的手机是 iPhone 12")
        ['phone']
        >>> slot_keys("I also like Go")
        []
    """
    keys: list[str] = []
    for hit in P.find_attributes(P.first_person(text)):
        attr = hit.attribute
        if attr.multi or (attr.needs_slot and not hit.slot):
            continue
        key = f"{attr.key}:{hit.slot}" if hit.slot else attr.key
        if key not in keys:
            keys.append(key)
    if P.LEFT_JOB.search(text) and "employer" not in keys:  # "我从阿里离职了"
        keys.append("employer")
    return keys
