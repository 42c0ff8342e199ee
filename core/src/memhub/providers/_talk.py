"""What a sentence's shape says is talk to the listener, wherever its cue words sit.

The sentence classes of ``_heuristic_patterns`` (``COMMAND``, ``REQUEST``, ``QUESTION``,
``WEATHER``, ``PASSING``) read a clause from its first word. People put the topic first
("今晚晚饭推荐一下", "这个bug帮我看看", "My resume, can you polish it"), open with a laugh or
a sigh ("哈哈今天天气真好", "Ugh I'm so tired"), and ask without a question mark after a
short lead-in ("Quick question what time zone is Tokyo in"). These rules read that shape:

- an interjection glued to the front says nothing, and what follows is read on its own;
- a Chinese clause with no speaker before its predicate whose predicate is for the
  listener to carry out (a verb done "for me" 帮我/给我/替我, a tentative 一下, a doubled
  verb after a pointing topic or a nudge, with no 了/过 to say it already happened) is a
  request, whatever topic comes first;
- an English clause opened by "any" with no verb before it is a question ("any tips");
  a wh-word after a lead-in of one or two words that holds no subject, auxiliary or
  name, followed by an auxiliary or a measure ("how long", "what time"), is a question;
- a short topic said just before a request or question is that request's object, not a
  statement ("Dinner tonight, any recommendations");
- "it" of the weather or the time is no pronoun that needs context ("It's been raining
  at our new office in Seattle, we moved there in May").

Example:
    >>> asks("今晚晚饭推荐一下"), asks("这个bug帮我看看"), asks("老板给我加薪了")
    (True, True, False)
    >>> without_interjection("哈哈今天天气真好")
    '今天天气真好'
"""

from __future__ import annotations

import re

from memhub.providers._heuristic_patterns import CJK

__all__ = ["asks", "dummy_it", "is_topic", "refers_back", "without_interjection"]

# A laugh or sigh glued to the front; a laugh is two syllables at least (哈尔滨 is a city).
_INTERJECTION = re.compile(
    r"^(?:(?:哈{2,}|呵{2,}|嘿{2,}|嘻{2,}|嗯{2,}|唉|哎(?:呀|哟)?|呃|哇|啧)(?=[^\s，,。！!]))"
    r"|^(?i:(?:ha(?:ha)+h?|hehe|lol|lmao|ugh|phew|oof|meh|gosh|geez|whoa|wow|man|honestly|"
    r"seriously|welp)\b[\s,.!~]+)"
)

# Chinese: no speaker before the predicate ("孩子的作业我每天都检查一下" is a habit of the
# speaker's), no 了/过/着 that says it happened, no wish or place of someone's own before it
# ("Lisa想休息一下", "在家休息一下"), and a predicate the listener is to carry out: a verb done
# "for me" or a tentative 一下. A doubled verb asks only after a pointing topic or a nudge
# ("那个函数再解释解释", "这个方案看看"): "学习画画" and "告诉妈妈" double a word, not a verb.
_DONE = "了过着"
_TOPIC = rf"[^我咱，,。；;{_DONE}想要去会在得]"
_ZH_REQUEST = re.compile(
    rf"^{_TOPIC}{{0,16}}?"
    rf"(?:(?:帮我|帮忙|给我|替我)(?:再|先|来)?[^，,。；;{_DONE}]{{1,6}}"  # for me
    rf"|[^\W\d_{_DONE}的是]{{1,2}}一下)"  # tentative: 推荐一下
    r"(?:吧|呗|呀|啊|哈)?$"
)
_ZH_DOUBLED_REQUEST = re.compile(
    rf"^(?:(?:这|那){_TOPIC}{{0,12}}?|{_TOPIC}{{0,12}}?(?:再|先|你|好好|赶紧))"
    rf"(?:([{CJK}])\1|([{CJK}]{{2}})\2)(?:吧|呗|呀|啊)?$"
)
# English: an opening "any" with no verb before it asks ("any recommendations", "any idea
# what to cook"); a wh-word after a lead-in of one or two words (no pronoun, auxiliary or
# name among them) asks when an auxiliary or a measure follows it ("Quick question what
# time…", "Just curious how long…"); "Uncle taught Lisa how to bake" tells.
_ANY = re.compile(r"^any\s+\w", re.I)
_AUX = (
    r"is|are|was|were|am|be|been|do|does|did|have|has|had|can|could|should|would|will|shall|"
    r"may|might|must"
)
_PRONOUN = r"i|we|you|he|she|they|it|my|our|your|his|her|their|i'm|we're|it's"
_WH_AFTER_LEAD = re.compile(
    rf"^[\w'-]+(?:\s+(?!(?:{_PRONOUN}|{_AUX})\b)(?-i:[a-z][\w'-]*))?\s+"
    r"(?:what|how|why|where|who|which|when|whether)\s+"
    rf"(?:{_AUX}|long|much|many|often|far|old|time|kind|sort|type|the\s+best)\b",
    re.I,
)

# A request that points back at a thing named before it ("can you polish it", "帮我看看这个").
_BACK = re.compile(r"\b(?:it|this|that|them|these|those)\b|它|这个|那个", re.I)
# A topic: a few words with no subject or verb of their own ("My resume", "今晚晚饭").
_EN_TOPIC = re.compile(
    r"^(?!(?:i|we|you|he|she|they|it|i'm|we're|it's)\b)(?:[\w'-]+\s*){1,3}$", re.I
)
_EN_VERBISH = re.compile(rf"\b(?:{_AUX})\b|'s\b|'re\b|'m\b|ed\b", re.I)
_ZH_TOPIC = re.compile(rf"^(?![我咱])[{CJK}A-Za-z0-9 ]{{1,8}}$")
_ZH_VERBISH = re.compile(r"[了过着是在有用要会想]")

# "It" of the weather or the time is nobody: "It's been raining", "It was late".
_DUMMY_IT = re.compile(
    r"^it(?:'s|\s+is|\s+was|\s+has)?(?:\s+been)?\s+(?:so\s+|really\s+|very\s+)?(?:raining|"
    r"snowing|pouring|freezing|hot|cold|sunny|windy|humid|rainy|late|early|dark)\b",
    re.I,
)


def without_interjection(text: str) -> str:
    """``text`` without a laugh, sigh or exclamation glued to its front."""
    return _INTERJECTION.sub("", text, count=1).strip()


def asks(clause: str) -> bool:
    """Whether ``clause`` asks the listener for something by its shape (see module doc)."""
    clause = clause.strip(" 。.!！~")
    if _ZH_REQUEST.match(clause) or _ZH_DOUBLED_REQUEST.match(clause):
        return True
    return bool(_ANY.match(clause) or _WH_AFTER_LEAD.match(clause))


def is_topic(clause: str) -> bool:
    """A few words naming a thing, with no subject or verb: the object of what follows."""
    clause = clause.strip()
    if re.search(rf"[{CJK}]", clause):
        return bool(_ZH_TOPIC.match(clause)) and not _ZH_VERBISH.search(clause)
    return bool(_EN_TOPIC.match(clause)) and not _EN_VERBISH.search(clause)


def refers_back(clause: str) -> bool:
    """Whether a request points at something named before it, or names no object at all."""
    return bool(_BACK.search(clause)) or bool(_ANY.match(clause.strip()))


def dummy_it(text: str) -> bool:
    """Whether ``text`` opens with the "it" of the weather or the time, which needs no context."""
    return bool(_DUMMY_IT.match(text))
