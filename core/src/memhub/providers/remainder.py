"""What a superseded memory still says that the statement replacing it does not touch.

"我们项目用 Vue 3，后端是 Go", then "我们前端已经从 Vue 3 换成 React 了": the new statement
supersedes the old memory, and with it "后端是 Go", which nothing changed. The write path
keeps such untouched parts as a memory of their own (``remainder``), so a change of one
value never retires its neighbours in the same sentence.

Rules over the text, like the heuristic judge they reuse: the old memory is cut into its
clauses, each clause the new statement overrides, restates or names the replaced value of
is touched, and the others are what remains, each given the subject it shared ("在阿里做前端"
→ "我在阿里做前端"). When no clause is touched (the judge saw a change the rules cannot
place) or every clause is, nothing remains: the whole memory was replaced.

One clause can fill two slots ("I work at Acme as a data engineer", "我在阿里巴巴做产品经理"):
a new employer ("I left Acme, now I'm at Globex") changes one of them, and the other is kept
as a statement of its own ("I'm a data engineer", "我是产品经理"), unless the new words
change it too.

Example:
    >>> remainder("我们项目用 Vue 3，后端是 Go", "我们前端已经从 Vue 3 换成 React 了")
    '我们项目后端是 Go'
    >>> remainder("I drink coffee every morning and tea in the afternoon", "I quit coffee")
    'I drink tea in the afternoon'
    >>> remainder("I work at Acme as a data engineer", "I left Acme, now I'm at Globex")
    "I'm a data engineer"
"""

from __future__ import annotations

import re

from memhub.providers import _heuristic_patterns as P
from memhub.providers.heuristic import (
    _CJK_RUN,
    _CLAUSE_SPLIT,
    _OWN_SUBJECT,
    _facts,
    _mentions_form,
    _relate,
    _sentences,
)
from memhub.providers.slots import slot_keys

__all__ = ["remainder"]

# The subject a clause may share with the one before it, and in English the verb as well
# ("We use Vue 3 for the frontend and Go for the backend": "Go for the backend" has neither).
_ZH_PRONOUN = "我们|咱们|我|他们|她们|他|她"
_ZH_SUBJECT = re.compile(rf"^(?:[^\s，,。；;]{{1,6}}?(?=用|是|有|不用|没有)|{_ZH_PRONOUN})")
_EN_SUBJECT_VERB = re.compile(
    r"^(?P<subject>I|we|they|he|she|my\s+\w+|our\s+\w+)\s+(?P<verb>[a-z]+)\b", re.I
)
# A clause that opens with a thing of its own ("缓存用 Redis") takes an owner's subject whole
# ("我们项目" → "我们项目后端是 Go"), and of another thing's only its owner ("我们的数据库" →
# "我们的缓存用 Redis").
_ZH_OWN_TOPIC = re.compile(r"^(?!不|没)[^\s，,。；;]{1,6}?(?=用|是|有)")
_ZH_OWNER = re.compile(rf"^(?:{_ZH_PRONOUN})(?:的)?(?:项目|团队|公司|组|家)?$")
_ZH_PRONOUN_OWNER = re.compile(rf"^(?:{_ZH_PRONOUN})(?:的)?")
# A clause that starts with a verb of its own takes only the subject ("… and work at SAP");
# lower case only, so that "Go for the backend" is a name, not the verb.
_EN_VERB_FIRST = re.compile(
    r"^(?:am|is|are|was|were|have|has|had|do|does|did|will|would|can|could|also|still|now|"
    r"often|usually|never|always|just|really|work|works|worked|live|lives|lived|use|uses|used|"
    r"like|likes|liked|love|loves|loved|prefer|prefers|preferred|play|plays|played|own|owns|"
    r"drive|drives|study|studies|speak|speaks|run|runs|write|writes|read|reads|eat|eats|"
    r"drink|drinks|go|goes|went|get|gets|got|make|makes|made|keep|keeps|kept|need|needs|"
    r"want|wants|plan|plans|teach|teaches|build|builds|moved|started|joined|left|switched)\b"
)


# A clause that goes on about the one before it ("…是 Java，已经用了5年", "…, it keeps me awake")
# stands or falls with that one.
_GOES_ON = re.compile(
    r"^(?:已经|也|还|都|并|而且|所以|因为|就|才|一直|总是|特别|非常|真|很|太|挺|它|这|那|现在|如今|"
    r"(?:it|that|which|this|so|because|since|as|though|although|then|where|when|who|whose|"
    r"too|especially|mostly|mainly|now)\b)",
    re.I,
)


_EN_OWN_VERB = re.compile(
    r"^(?:the|this|that|our|my|his|her|their)\s+\w+(?:\s+\w+)?\s+(?:is|are|was|were|has|have|uses?|runs?)\b",
    re.I,
)


def _clauses(text: str) -> list[str]:
    return [
        clause.strip()
        for body, _ in _sentences(text)
        for clause in _CLAUSE_SPLIT.split(body)
        if clause and clause.strip()
    ]


def _touched(clause: str, new: str) -> bool:
    statement = _facts(new)
    old, _ = statement.replacement or ("", "")
    if old and _mentions_form(clause, old):
        return True
    retired, _ = _facts(clause).replacement or ("", "")
    if retired and _mentions_form(new, retired):
        return True  # "I left Acme" is undone by "I work at Acme" again
    relation = _relate(statement, _facts(clause))
    return relation is not None and relation.action in ("OVERRIDE", "NOOP")


def _completed(clause: str, first: str) -> str:
    """The clause with the subject (and in English the verb) it shares with ``first``."""
    if _OWN_SUBJECT.match(clause) or _EN_OWN_VERB.search(clause):
        return clause  # "…, the backend is Django" stands as it is
    if _CJK_RUN.match(clause):
        subject = m.group() if (m := _ZH_SUBJECT.match(first)) else ""
        if _ZH_OWN_TOPIC.match(clause) and not _ZH_OWNER.match(subject):
            # "后端用 Go" after "我们前端用 React" names its own thing, of the same owner:
            # "我们后端用 Go", "我们的缓存用 Redis" (never "我们前端后端用 Go")
            owner = m.group() if (m := _ZH_PRONOUN_OWNER.match(subject)) else ""
            return owner + clause
        return subject + clause if subject and not clause.startswith(subject) else clause
    m = _EN_SUBJECT_VERB.match(first)
    if not m:
        return clause
    if _EN_VERB_FIRST.match(clause):
        return f"{m['subject']} {clause}"
    return f"{m['subject']} {m['verb']} {clause}"


# How a slot left standing is said on its own: (Chinese, English).
_SAID_ALONE = {
    "employer": ("我在{}工作", "I work at {}"),
    "job": ("我是{}", "I'm {}"),
    "work_city": ("我在{}工作", "I work in {}"),
    "residence": ("我住在{}", "I live in {}"),
    "manager": ("我的领导是{}", "My manager is {}"),
}


def _as_said(value: str, clause: str) -> str:
    """``value`` (an attribute's canonical, lower-case form) as ``clause`` spells it."""
    m = re.search(r"\s*".join(map(re.escape, value.split())), clause, re.I)
    return m.group() if m else value


def _slots_left(clause: str, new: str) -> list[str]:
    """The slots of a clause that ``new`` changes only in part, each said on its own: "I work
    at Acme as a data engineer" after "I left Acme, now I'm at Globex" → "I'm a data engineer"."""
    hits = [
        h
        for h in P.find_attributes(P.first_person(clause))
        if not h.attribute.multi and not h.attribute.needs_slot
    ]
    if len({h.attribute.key for h in hits}) < 2:
        return []  # one thing said, and it was replaced
    changed = set(slot_keys(new))
    retired, _ = _facts(new).replacement or ("", "")
    chinese = bool(_CJK_RUN.search(clause))
    out = []
    for hit in hits:
        key = hit.attribute.key
        if key in changed or key not in _SAID_ALONE or (retired and hit.value in retired.lower()):
            continue
        value = _as_said(hit.value, clause)
        if not chinese and key == "job":
            value = ("an " if value[:1].lower() in "aeiou" else "a ") + value
        out.append(_SAID_ALONE[key][0 if chinese else 1].format(value))
    return out


def remainder(old: str, new: str) -> str | None:
    """The statements of ``old`` that ``new`` leaves standing, joined; ``None`` if none."""
    clauses = _clauses(old)
    if not clauses:
        return None
    touched: list[bool] = []
    for clause in clauses:
        goes_on = bool(touched) and bool(_GOES_ON.match(clause))
        touched.append(touched[-1] if goes_on else len(clauses) == 1 or _touched(clause, new))
    if not any(touched):
        return None  # the judge saw a change the rules cannot place: all of it was replaced
    kept = []
    for clause, was_touched in zip(clauses, touched, strict=True):
        if was_touched:
            kept.extend(_slots_left(clause, new))
        else:
            kept.append(_completed(clause, clauses[0]))
    return ("，" if _CJK_RUN.search(old) else ", ").join(kept) or None
