"""A changed value said in words no rule was written for.

"My main language at work is Java", then weeks later "These days I mostly write Kotlin at
work": no attribute of the judge's table matches both, no "from A to B" names the old value,
yet a reader sees at once that Kotlin took Java's place. What tells them, and what this module
checks, is three things together:

* a cue that something changed: now, these days, switched, moved, 最近, 已经, 换了, 切到;
* a word the two statements share that is not a value and not the person they are about
  ("work", "tickets", "打包"): they speak of the same thing;
* in place of a value of the old statement, a new value of the same kind: a name for a name
  ("Jira" → "Linear", "Webpack" → "Vite"), a number for a number of the same thing ("3 times a
  week" → "once a week"), a day for a day ("Fridays" → "Tuesdays"), a time of day for a time
  of day, a place for a place ("公司在望京" → "公司搬到亦庄了"); the old one is gone from the new
  statement, or named only to be retired ("We stopped deploying on Fridays").

Each alone is common; together they are a change, in a statement of a fact or two (a story
of several clauses has names, numbers and shared words everywhere). A statement that adds
(also, too, 也, 又) changes nothing, and one about another person ("My sister lives in
Boston") changes only what was said of that person. Two names of known, different kinds (a
programming language and an orchestrator) are not one value replacing another.

The same module tells the opposite case, the same thing said again in other words ("I live
in Berlin", later "Berlin is where I live"; "我们团队用飞书沟通", later "我们团队沟通用飞书"):
``restates`` compares what two statements say with grammar and word order set aside.

Example:
    >>> new = "These days I mostly write Kotlin at work"
    >>> old = "My main language at work is Java"
    >>> changed_value(new, {"day", "write", "kotlin", "work"}, old, {"language", "work", "java"})
    'value_change'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Set
from functools import lru_cache

from memhub.providers import _heuristic_patterns as P

__all__ = ["changed_value", "restates", "same_person", "says_more"]

_I = re.IGNORECASE
CHANGE_CUE = re.compile(
    r"现在|最近|如今|目前|这阵子|这段时间|这些天|已经|换|改|搬|切|迁|转到|调到|升到|降到|扩到|缩到|变成|不再"
    r"|\b(?:now|these\s+days|nowadays|anymore|no\s+longer|lately|currently|switched|moved|changed|"
    r"traded|replaced|swapped|upgraded|downgraded|migrated|stopped|started|quit|became|instead|"
    r"rewrote|rewritten|rebuilt|ported|dropped|ditched|abandoned|"
    r"down\s+to|up\s+to)\b",
    _I,
)
ADDITIVE = re.compile(
    r"也|又|另外|另一|还有|此外|\b(?:also|too|as\s+well|another|besides|in\s+addition)\b", _I
)
# Who a statement is about, when not the user, read at its start: family, friends, someone
# named in the possessive ("Alice's manager"). A manager or a boss is a slot of the user's
# ("Bob is my new manager" changes "My manager is Alice").
_PEOPLE = (
    r"sister|brother|mom|mum|mother|dad|father|parents|wife|husband|partner|son|daughter|kids?|"
    r"children|child|friend|roommate|girlfriend|boyfriend|"
    r"grandma|grandpa|grandmother|grandfather|family|neighbou?r|cousin|aunt|uncle"
)
_ZH_PEOPLE = (
    r"妈妈?|爸爸?|父母|老婆|老公|妻子|丈夫|爱人|女儿|儿子|孩子|朋友|姐姐?|哥哥?|弟弟?|妹妹?"
    r"|爷爷|奶奶|外公|外婆|女朋友|男朋友|室友|邻居"
)
# Capitalised at the start of a sentence without being a name.
_NOT_NAMES = (
    r"I|I'm|I've|My|Our|We|They|These|This|That|Those|There|Today|Yesterday|Lately|Recently|"
    r"Now|Currently|Actually|Also|Then|So|Since|After|Before|When|Last|Next|Every|"
    r"Turns|It|It's|Just|Still|Finally|Anyway|Btw|Oh|Well|Yes|No|Sadly|Luckily"
)
_PERSON = re.compile(
    rf"^\s*(?:(?:my|our|his|her)\s+(?:\w+\s+)?(?P<en>{_PEOPLE})(?:'s)?\b"
    rf"|(?-i:(?P<name>(?!(?:{_NOT_NAMES})\b)[A-Z][a-z]+)'s\s)"
    rf"|我(?:的|们的?)?(?P<zh>{_ZH_PEOPLE})"
    # a story about someone, told in Chinese: "Bart因为搬家到一个新城市…"
    rf"|(?-i:(?P<lead>[A-Z][a-z]+))(?=\s*[{P.CJK}]))",
    _I,
)
# Values: a name (a capitalised word inside an English sentence; any Latin word among
# Chinese), a number, a time.
_EN_NAME = re.compile(
    r"(?<=\s)(?!I\b|I'm\b|I've\b)[A-Z][A-Za-z0-9.+#-]*|(?<=\s)[a-z]+[A-Z][A-Za-z0-9.+#-]*"
)
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*")
_NUMBER = re.compile(
    rf"\d+(?:[.:]\d+)*(?:st|nd|rd|th)?|{P.CN_NUMBER}"
    r"|\b(?:once|twice|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|"
    r"half|none|zero)\b",
    _I,
)
_CN_DIGIT = "一二两三四五六七八九十"
_ZH_CLOCK = (
    rf"(?:上午|下午|晚上|早上|凌晨|中午)?[{_CN_DIGIT}]{{1,3}}点(?:半|[{_CN_DIGIT}]{{1,3}}分?)?"
)
_TIME = re.compile(f"{P.ZH_TIME}|{_ZH_CLOCK}|{P.EN_TIME}", _I)
# A time of day does not replace a day ("standup moved to 10:30am" keeps "every other Tuesday").
_CLOCK = re.compile(rf"\d[:点]|\d\s*(?:am|pm)\b|noon|midnight|[{_CN_DIGIT}]点", _I)
# Where something is ("我们公司在望京") and where it went ("公司搬到亦庄了"); 在 only at the end,
# since "在" before a verb says what is going on ("公司在招人").
_ZH_AT = re.compile(r"在\s*(?P<place>[^\s，,。！!；;了的在]{2,8})\s*[。！!]?$")
_ZH_MOVED = re.compile(
    r"(?:搬到|搬去|搬回|迁到|迁去|挪到)了?\s*(?P<place>[^\s，,。！!；;了的]{2,8})"
)
# An old value named again only to be let go of.
_RETIRED = re.compile(
    r"\b(?:stopped|sold|gave\s+away|got\s+rid\s+of|traded\s+in|returned|dropped|ditched)\b"
    r"|不再|停了|送给\S{1,4}了|送人了|卖了|卖掉|扔了|退了",
    _I,
)
# Words two statements may share without speaking of the same thing: cues and times.
_NOT_SHARED = frozenset(
    {"now", "nowaday", "anymore", "lately", "currently", "change", "time", "last", "ago"}
    | {"day", "week", "weekend", "month", "year", "today", "yesterday", "tomorrow"}
    | {"morning", "afternoon", "evening", "night"}
)
_CLAUSES = re.compile(r"[，,。；;！!？?]|\s(?:but|and|so)\s", _I)
_NOW = frozenset({"now", "nowadays", "anymore", "lately", "currently"})
_ZH_WHEN = re.compile(r"每天|每周|周末|上午|下午|晚上|早上|今天|昨天|明天|上个?月|去年|今年|时候")


def _stem(word: str) -> str:
    """running → run, deploying → deploy, roommates → roommat: enough to see one word."""
    if not re.fullmatch(r"[a-z]{4,}", word):
        return word
    word = re.sub(r"(?:ing|ed|es|e|s)$", "", word)
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou" else word


@lru_cache(maxsize=4096)
def _person(text: str) -> str | None:
    m = _PERSON.match(text)
    if not m:
        return None
    return (m["en"] or m["zh"] or m["name"] or m["lead"]).lower()


@lru_cache(maxsize=4096)
def _one_fact(text: str) -> bool:
    """A statement of a fact or two, not a story: at most two clauses and 30 words (a Chinese
    character counts as a word). In a story, names, numbers and shared words are everywhere."""
    words = len(re.findall(f"[{P.CJK}]", text)) + len(re.findall(r"[A-Za-z0-9]+", text))
    return words <= 30 and len(_CLAUSES.split(text.strip(" 。.!！"))) <= 2


def same_person(a: str, b: str) -> bool:
    """Whether two statements are about the same person: the user, or one they name at the
    start ("My parents moved to Munich too" is not "I moved to Munich")."""
    return _person(a) == _person(b)


def _values(text: str, old: bool) -> dict[str, set[str]]:
    """The statement's values by kind, lower case; ``old``: the stored one (where something
    is), else the new one (where it went)."""
    latin = _LATIN if re.search(f"[{P.CJK}]", text) else _EN_NAME
    times = {m.lower() for m in _TIME.findall(text)}
    numbers = {m.lower() for m in _NUMBER.findall(text)} - {t for t in times if t.isdigit()}
    return {
        "place": {m["place"] for p in (_ZH_AT if old else _ZH_MOVED,) if (m := p.search(text))},
        "name": {m.lower().rstrip(".") for m in latin.findall(text)} - {_person(text)},
        "number": {n for n in numbers if not any(n in t for t in times)},
        "clock": {t for t in times if _CLOCK.search(t)},
        "day": {t for t in times if not _CLOCK.search(t)},
    }


def _cjk_words(text: str, values: dict[str, set[str]]) -> set[str]:
    """Chinese character pairs outside the values and the change cues, grammar aside: the
    judge's topic leaves out any pair with a function character, and so "站会" (会)."""
    for value in (v for kind in values.values() for v in kind):
        text = text.replace(value, " ")
    text = _ZH_WHEN.sub(" ", CHANGE_CUE.sub(" ", text))
    return {
        run[i : i + 2]
        for run in re.findall(f"[{P.CJK}]+", text)
        for i in range(len(run) - 1)
        if not set(run[i : i + 2]) <= P.STOP_CHARS
    }


def _kinds_differ(old: str, new: str) -> bool:
    """Two names of known, different kinds ("python" is a language, "kubernetes" is not)."""
    a, b = P.canonical_slot(None, old), P.canonical_slot(None, new)
    return a != b


def _around(text: str, number: str, *, whole: bool = False) -> set[str]:
    """What a number counts or belongs to: the word before it ("iPhone 13", "Ubuntu 20.04") and
    the last word of the few after it ("3 backend services", "once a week"; "8 个人"), or
    ``whole``: all of those few."""
    out: set[str] = set()
    for m in re.finditer(rf"(?i)(?<![a-z0-9.])({re.escape(number)})(?![a-z0-9.])", text):
        out |= _words_around(text, m, whole)
    return out


def _words_around(text: str, m: re.Match[str], whole: bool) -> set[str]:
    named = {
        _stem(w.lower())
        for w in re.findall(r"[A-Za-z0-9.+#-]+", text[max(0, m.start() - 40) : m.start()])[-1:]
        if any(c.isupper() for c in w)
    }
    if named:  # a version or a model ("Vue 3 for the frontend"): it counts nothing after it
        return named
    after = text[m.end() :].lstrip()
    if re.match(f"[{P.CJK}]", after):
        unit = _ZH_UNIT.match(after)
        return named | {_unit(unit.group() if unit else after[:2])}
    words = [w for w in re.findall(r"[a-z]+", after.lower())[:3] if w not in P.STOP_WORDS]
    words = [w for w in words if w not in _NOW and w not in ("a", "an", "per", "every")]
    return named | {_unit(_stem(w)) for w in (words if whole else words[-1:])}


# Units of one measure: an hour and twenty minutes are both a duration ("通勤一个小时" →
# "通勤只要二十分钟了").
_UNITS = P._lexicon(
    {
        "duration": "second|minut|hour|day|week|month|year|秒|分钟|小时|个小时|天|周|个月|月|年",
        "money": "dollar|euro|pound|yuan|buck|元|块|美元|欧元",
        "distance": "km|kilometer|mile|meter|公里|千米|米",
    }
)
_ZH_UNIT = re.compile(
    "|".join(sorted((u for u in _UNITS if re.match(f"[{P.CJK}]", u)), key=len)[::-1])
)


def _unit(word: str) -> str:
    return _UNITS.get(word, word)


def _replaced(kind: str, old: set[str], new: set[str], old_text: str, new_text: str) -> bool:
    gone = old - new
    added = new - old
    if not added:
        return False
    if not gone:  # the old value named again: only to retire it ("stopped deploying on Fridays")
        return any(
            any(v in clause.lower() for v in old)
            and (P.NEGATION.search(clause) or _RETIRED.search(clause))
            for clause in _CLAUSES.split(new_text)
        )
    if kind == "name":
        return any(not _kinds_differ(o, n) for o in gone for n in added)
    if kind == "number":  # the same count of the same thing, not another count
        return any(_around(old_text, o) & _around(new_text, n) for o in gone for n in added)
    return True


def _anchors(
    text: str, topic: Set[str], values: dict[str, set[str]], all_values: list[str]
) -> set[str]:
    """What a statement speaks of: its words but the values (of either statement), what its
    numbers count ("dollars": "Electricity is now 90 dollars a month" is not about the rent),
    times, cues and the person it is about."""
    units = {w for n in values["number"] for w in _around(text, n, whole=True)}
    who = {_stem(w) for w in (_person(text) or "").split()}
    return {
        w
        for w in {_stem(t) for t in topic} | _cjk_words(text, values)
        if w not in _NOT_SHARED | units | who
        and _unit(w) not in units
        and not _ZH_WHEN.fullmatch(w)
        and not any(w in v or _stem(v) == w for v in all_values)
    }


_UPDATE_TYPE = {"clock": "schedule_change", "day": "schedule_change", "place": "location_change"}


def changed_value(
    new_text: str, new_topic: Set[str], old_text: str, old_topic: Set[str]
) -> str | None:
    """The update type when ``new_text`` says that a value of ``old_text`` changed, else None.

    ``*_topic``: the statements' content tokens (the judge's ``_Facts.topic``).
    """
    if not (_one_fact(new_text) and _one_fact(old_text)):
        return None
    if not CHANGE_CUE.search(new_text) or ADDITIVE.search(new_text):
        return None
    if not same_person(new_text, old_text):
        return None
    old_values, new_values = _values(old_text, old=True), _values(new_text, old=False)
    values = [v for kind in (*old_values.values(), *new_values.values()) for v in kind]
    shared = _anchors(new_text, new_topic, new_values, values) & _anchors(
        old_text, old_topic, old_values, values
    )
    # What the two share besides values; or an old name the new statement names again
    # beside a new one ("I traded in my Civic for a Tesla"): the thing being replaced.
    renamed = old_values["name"] & new_values["name"] and new_values["name"] - old_values["name"]
    if not (shared or renamed):
        return None
    for kind in ("clock", "day", "number", "place", "name"):
        if old_values[kind] and _replaced(
            kind, old_values[kind], new_values[kind], old_text, new_text
        ):
            return _UPDATE_TYPE.get(kind, "value_change")
    return None


# -- The same thing said again in other words ----------------------------------------------

# Grammar that a rewording moves, adds or drops ("Berlin is where I live", "Our database is
# PostgreSQL", "我们的缓存用的是 Redis"): the judge's stop words, articles, relative words and
# the speaker's own pronouns. An object ("Bob likes me"), a third person and "go" (a language
# as much as a verb) stay words.
_GRAMMAR = (
    P.STOP_WORDS | P._names("a|an|the|where|when|whom|whose|why|how|i'm|i've|i'd|we're|we've|we'd")
) - P._names("me|us|he|she|they|them|their|him|her|his|go")
_GRAMMAR_CHARS = (P.STOP_CHARS - set("他她它")) | set("对做将得着")
# Who speaks: "I" and "we" are one person to the judge, but not the same statement; a
# statement that names neither ("Logs are stored in Elasticsearch") may be either's.
_SINGULAR = re.compile(r"\b(?:i|me|my|mine|i'm|i've|i'd)\b|我(?!们)", _I)
_PLURAL = re.compile(r"\b(?:we|us|our|ours|we're|we've|we'd)\b|我们|咱们", _I)
# Which value comes first matters ("from MySQL to PostgreSQL", "A 比 B 快"): such a statement
# is never the same as one with its words in another order.
_ORDERED = re.compile(
    r"\b(?:from|than|instead|rather|over|versus|vs)\b|比|从|而不是|取代|代替|替换|换成|改成|改用",
    _I,
)
# Tense that the stop words would hide ("I lived in Berlin" is not "I live in Berlin"); a
# participle after "be" is passive, not past ("Logs are stored in Elasticsearch").
_PAST = re.compile(r"\b(?:was|were|did|had|used\s+to|ago|formerly|previously)\b", _I)
_BE = P._names("is|are|am|be|been|being|was|were|get|got|gets|i'm|we're|it's|they're|'m|'re")


@lru_cache(maxsize=4096)
def _said(text: str) -> tuple[frozenset[str], str, tuple[bool, ...]]:
    """What a statement says, grammar and word order aside: its English words (stemmed) and
    its Chinese characters, numbers left to the judge; and what those miss: who speaks ("i",
    "we", both or neither), a past tense, a negation, a plan."""
    folded = re.sub(P.CN_NUMBER, " ", unicodedata.normalize("NFKC", text).lower())
    folded = P.FILLERS.sub(" ", folded)
    words = [
        w.strip("'.-")
        for w in re.findall(r"[a-z][a-z0-9+#'.-]*", re.sub(f"[{P.CJK}]", " ", folded))
    ]
    past = bool(_PAST.search(folded)) or any(
        w.endswith("ed")
        and not w.endswith("eed")
        and len(w) > 4
        and (i == 0 or words[i - 1] not in _BE)
        for i, w in enumerate(words)
    )
    content = {_stem(w) for w in words if w and w not in _GRAMMAR}
    content |= {c for run in re.findall(f"[{P.CJK}]+", folded) for c in run} - _GRAMMAR_CHARS
    speaker = ("i" if _SINGULAR.search(folded) else "") + ("we" if _PLURAL.search(folded) else "")
    features = (past, bool(P.NEGATION.search(folded)), bool(P.FUTURE.search(folded)))
    return frozenset(content), speaker, features


def restates(new: str, old: str) -> bool:
    """Whether ``new`` says what ``old`` says in other words: one fact each, about the same
    person, with the same words of content in any order (numbers are the caller's to compare).

    Example:
        >>> restates("Berlin is where I live", "I live in Berlin")
        True
        >>> restates("My sister lives in Berlin", "I live in Berlin")
        False
        >>> restates("We use PostgreSQL for analytics", "We use PostgreSQL for the app")
        False
    """
    if not (_one_fact(new) and _one_fact(old)) or not same_person(new, old):
        return False
    if _ORDERED.search(new) or _ORDERED.search(old):
        return False
    (words, speaker, features), (old_words, old_speaker, old_features) = _said(new), _said(old)
    return (
        bool(words)
        and words == old_words
        and features == old_features
        and (speaker == old_speaker or not speaker or not old_speaker)
    )


def says_more(new: str, old: str) -> bool:
    """Whether ``new`` has a word of content that ``old`` has not ("We use PostgreSQL for
    search" beside "… for billing"; "我们前端用 React，后端用 Go" beside "我们前端用 React")."""
    return bool(_said(new)[0] - _said(old)[0])
