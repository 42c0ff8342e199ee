"""Offline extractor and write judge: rules over the text, no model, no I/O.

These are the defaults when no API key is configured. They are meant to be predictable
rather than clever: the extractor keeps the user's own declarative sentences, and the
judge recognises duplicates, value changes of known attributes (``_heuristic_patterns``),
"A → B" replacements, changed numbers, flipped negations and related statements.

Example:
    >>> [c.text for c in extract_candidates([Message(role="user", \
content="我住在上海，在字节跳动工作")])]
    ['我住在上海', '我在字节跳动工作']
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Set
from dataclasses import dataclass
from functools import lru_cache

from memhub import cpu
from memhub.known_tools import names_a_tool
from memhub.providers import _heuristic_patterns as P
from memhub.providers import _talk as talk
from memhub.providers.restated import changed_value, restates, same_person, says_more
from memhub.providers.types import Candidate, JudgeItem, Layer, Message, Verdict
from memhub.text import infer_epistemic

__all__ = [
    "HeuristicExtractor",
    "HeuristicJudge",
    "extract_candidates",
    "judge_item",
]

# -- The judge's thresholds (token-set overlaps, 0..1; see _relate) ------------------------

COVERED = 0.9
"""Share of the candidate's tokens a neighbour holds for the candidate to be already stated."""
NEAR_DUPLICATE = 0.8
"""Dice coefficient of two token sets at which the statements say the same."""
NEGATED_SAME = 0.6
"""Overlap of the plain words at which opposite polarities negate one statement."""
RENUMBERED_TOPIC = 0.7
"""Topic overlap at which other numbers are a new value of the same thing."""
SAME_TOPIC = 0.4
"""Topic overlap at which a compatible statement supplements the neighbour."""
RESTATED = 0.85
"""Neighbour score (rescaled cosine) from which the same words of content in another order
say the same: reworded restatements score 0.86-0.99 with e5, and the words decide."""

# -- Text primitives ------------------------------------------------------------------------

_PUNCT = re.compile(r"[\W_]+")
_CJK_RUN = re.compile(rf"[{P.CJK}]+")
_WORD = re.compile(r"[a-z0-9][a-z0-9+#'.-]*")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
# Years date events (which accumulate) rather than measure a state.
_YEAR = re.compile(
    r"(?:19|20)\d\d(?=\s*年)|(?<=in |by )(?:19|20)\d\d|(?<=since |until |after )(?:19|20)\d\d"
)
_CN_NUMBER = re.compile(P.CN_NUMBER)
_CN_DIGITS = dict(
    zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)
)


def _cn_to_int(s: str) -> int:
    total = current = 0
    for ch in s:
        if ch in _CN_DIGITS:
            current = _CN_DIGITS[ch]
        else:  # 十 or 百
            total += (current or 1) * (10 if ch == "十" else 100)
            current = 0
    return total + current


def _fold(text: str) -> str:
    """NFKC, lower case, Chinese counts as digits ("三只猫" → "3只猫")."""
    text = unicodedata.normalize("NFKC", text).lower()
    return _CN_NUMBER.sub(lambda m: str(_cn_to_int(m.group())), text)


def _key(text: str) -> str:
    """Identity of a statement: case-, width- and punctuation-insensitive."""
    return _PUNCT.sub("", _fold(text))


def _tokens(text: str) -> set[str]:
    """CJK character bigrams plus Latin words (plural -s folded)."""
    out: set[str] = set()
    for run in _CJK_RUN.findall(text):
        out.update({run[i : i + 2] for i in range(len(run) - 1)} or {run})
    for word in (w.strip("'.-") for w in _WORD.findall(_CJK_RUN.sub(" ", text))):
        out.add(word[:-1] if len(word) > 3 and word[-1] == "s" and word[-2] != "s" else word)
    return out - {""}


def _topic(tokens: set[str]) -> set[str]:
    """Tokens that carry meaning: no pronouns, particles, function words or numbers."""
    return {
        t
        for t in tokens
        if t not in P.STOP_WORDS and not any(c in P.STOP_CHARS or c.isdigit() for c in t)
    }


def _dice(a: Set[str], b: Set[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def _overlap(a: Set[str], b: Set[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def _content_len(text: str) -> int:
    return len(_PUNCT.sub("", text))


def _drop_fillers(text: str) -> str:
    return P.FILLERS.sub(lambda m: "" if _CJK_RUN.match(m.group()) else " ", text)


# -- Sentence classes -----------------------------------------------------------------------


# A transcript line starts with its speaker ("Alice: Thanks!"), and small talk often names
# whom it is for ("Wow, Mel", "Hey Bob"): neither turns a greeting into a statement.
_LABEL = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?: +")
_ADDRESSED = re.compile(r"(?<=[\s,])[A-Z][a-z'.-]*")
# "[shares a photo of …]", "(laughs)": a note about the message, not something said.
_ANNOTATION = re.compile(r"^(?:\[[^\[\]]*\]|\([^()]*\)|（[^（）]*）)$")
# "Thanks for the tip, I'll try vim": the thanks is for the listener, the rest may be a fact.
_THANKS_FOR = re.compile(
    r"^(?:thanks|thank\s+you)(?:,?\s+[A-Z]\w*)?(?:\s+(?:so|very)\s+much|\s+a\s+lot)?[\s,]+for\b"
    r"[^,，;；]*[,，]?\s*",
    re.I,
)


def _is_chitchat(text: str) -> bool:
    text = _ADDRESSED.sub("", _LABEL.sub("", text))
    said = talk.without_interjection(text.strip(" 。.!！~"))
    return bool(
        P.CHITCHAT.match(_PUNCT.sub("", text.lower()))
        or P.WEATHER.match(said)
        or P.PASSING.match(said)
    )


def _is_question(text: str, terminator: str = "") -> bool:
    text = _LABEL.sub("", text)  # "Alice: How was the trip, …?" asks, whoever says it
    return terminator in ("?", "？") or bool(P.QUESTION.search(text.strip(" 。.!！~")))


def _is_talk(text: str) -> bool:
    """About the conversation, not the user: a verdict on the answer, talk about the memory
    itself ("forget what I just said"), or a deferral ("let me think about it")."""
    return bool(
        P.ABOUT_ASSISTANT.search(text) or P.META_MEMORY.search(text) or P.DEFERRAL.match(text)
    )


def _size(text: str) -> int:
    """Words, counting two CJK characters as one."""
    return (
        len(_WORD.findall(_CJK_RUN.sub(" ", text.lower())))
        + sum(len(run) for run in _CJK_RUN.findall(text)) // 2
    )


# Talk that is not a fact is short ("hold that thought", "下一个问题"); a longer statement
# with no "I" in it is a narrative ("Bart won first prize at the sports festival …").
SHORT_TALK = 6


def _worth_keeping(text: str) -> bool:
    text = _VOCATIVE.sub("", _LABEL.sub("", text))  # neither names anything the fact is about
    if _about_the_listener(text):
        return False
    return _size(text) > SHORT_TALK or _about_the_user(text)


# "Melanie, that's a great pic" / "It was awesome, Mel": the name says whom it is said to.
_VOCATIVE = re.compile(r"^[A-Z][a-z'.-]*,\s*|,\s*[A-Z][a-z'.-]*[\s!.~]*$")


def _about_the_listener(text: str) -> bool:
    """A reaction to what the other side said or showed ("That charity race sounds great",
    "Glad you had fun", "你真厉害"): it tells nothing about the speaker, so it is no memory of
    theirs. Anything that also speaks of the speaker ("I'm proud of you, I ran it too") stays."""
    return bool(P.REACTION.search(text)) and not P.FIRST_PERSON.search(text)


def _about_the_user(text: str) -> bool:
    """Says who (I, we, my sister, 我, 团队) or names something specific (a number, a name, a
    time, a product): "下一个问题", "hold that thought" and "不是这样的" do neither."""
    return bool(
        P.ABOUT_SOMEONE.search(text)
        or P.SPECIFIC.search(text)
        or re.search(r"\d", _fold(text))
        or P.PROFILE_CUE.search(text)
        or P.PROACTIVE.search(text)
        or re.search(P.ZH_TIME + "|" + P.EN_TIME + "|" + P.CITIES, text, re.I)
        or P.find_attributes(text)
        or names_a_tool(text)
    )


def _strip_fillers(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, P.FILLER_PREFIX.sub("", text, count=1).strip()
        text = talk.without_interjection(text)
    return text


# A statement worth keeping is a sentence, not a document: longer text stays a raw turn only.
MAX_STATEMENT = 300
# Each sentence and each judged text is read up to a bound, so the cost of a write grows
# with its length and never with the square of it: a "sentence" of 100k characters
# without a full stop is a document (kept raw), and a stored memory is judged by its start.
MAX_SENTENCE = 2000
MAX_JUDGED = 2000


def _too_short(text: str) -> bool:
    if _content_len(text) < 3 or len(text) > MAX_STATEMENT:
        return True
    text = _LABEL.sub("", text)  # "Alice: Bob" is a name said to someone, not a statement
    return not _CJK_RUN.search(text) and len(text.split()) < 2


# -- Extractor -----------------------------------------------------------------------------

_SENTENCE_END = "。！!？?；;\n"
_CLAUSE_SPLIT = re.compile(
    r"(?<!\s)\s*(?:，|,(?!\d))\s*(?:(?:and|but)\s+|并且|而且|同时|但是|不过)?|(?<!\s)\s+and\s+",
    re.I,
)
_SUBJECT = re.compile(r"^(?:我们|咱们|我|(?:I|We)\b)", re.I)
_OWN_SUBJECT = re.compile(r"^(?:我|你|他|她|它|咱|用户|(?:i|we|you|he|she|it|they|my|our)\b)", re.I)


def _sentences(text: str) -> list[tuple[str, str]]:
    """(body, terminator) pairs; "." ends a sentence only before a space (so 3.12 survives)."""
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in _SENTENCE_END or (ch == "." and (i + 1 == len(text) or text[i + 1].isspace())):
            out.append((text[start:i], ch))
            start = i + 1
    out.append((text[start:], ""))
    return [(body.strip(), end) for body, end in out if body.strip()]


_WH_OPENING = re.compile(r"^(?:what|which|who|whom|whose|where|when|why|how)\b", re.I)


def _rejoined(clauses: list[str], body: str) -> list[str]:
    """Clauses split apart that say one thing put back: a name split off a compound subject
    ("Sam and I broke up" is one statement, not "Sam" and "I broke up"; "Actually, I …" stays
    split), and a clause that says "it" of the one before ("Rent went up, it's 2100 dollars a
    month now": alone, "it's 2100 dollars a month" names nothing)."""
    out: list[str] = []
    for clause in clauses:
        joined = f"{out[-1]} and {clause}" if out else ""
        if joined and _NAME_ALONE.match(out[-1]) and re.match(r"I\b", clause) and joined in body:
            out[-1] = joined
        elif out and _REFERS_BACK.match(clause.strip()) and (span := _span(body, out[-1], clause)):
            out[-1] = span
        else:
            out.append(clause)
    return out


_REFERS_BACK = re.compile(r"(?:it's|it\s+is|it\s+was|its)\b|它", re.I)


def _span(body: str, first: str, second: str) -> str:
    """``first`` and ``second`` as ``body`` says them together, when only a comma parts them."""
    start = body.find(first)
    end = body.find(second, start + len(first)) if start >= 0 else -1
    if end < 0 or body[start + len(first) : end].strip(" ,，;；"):
        return ""
    return body[start : end + len(second)]


_NAME_ALONE = re.compile(r"^[A-Z][a-z'-]+$")


def _self_contained(clause: str) -> bool:
    return bool(P.PROFILE_CUE.search(clause) or P.find_attributes(clause))


# "I'm Dana, a backend engineer at Fintory", "我是小林，杭州的前端工程师": a name, then what the
# speaker is, said once; the description is a statement of its own ("I'm a backend engineer
# at Fintory"), which fills the job slot.
_INTRODUCTION = re.compile(
    rf"^(I'm|I\s+am|我是|我叫)\s*(?:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){{0,2}}|[{P.CJK}][\w{P.CJK}·-]{{0,10}})$"
)
# "a frontend developer", "frontend developer at Stripe", "一名前端工程师"; not a clause that
# says what the speaker does ("在字节做产品经理"), which takes the subject, not "是".
_DESCRIPTION = re.compile(
    rf"^(?:an?\s+\w|(?:[\w-]+\s+){{0,3}}?(?:{P.EN_ROLE})s?\b|(?![是在做当])[^\s，,]{{0,12}}(?:{P.ZH_ROLE})$)",
    re.I,
)


def _with_subject(clause: str, subject: str) -> str:
    if not subject or _OWN_SUBJECT.match(clause):
        return clause
    return f"{subject}{clause}" if _CJK_RUN.match(subject) else f"{subject} {clause}"


def _described(clause: str, copula: str) -> str:
    """A description said after a name, as a statement: "frontend developer" → "I'm a
    frontend developer"."""
    if not _CJK_RUN.match(copula) and not re.match(r"(?:an?|the)\s", clause, re.I):
        clause = ("an " if clause[:1].lower() in "aeiou" else "a ") + clause
    return _with_subject(clause, copula)


def _topic_of(clause: str, kept: list[str], clauses: list[str], i: int) -> bool:
    """Whether the clause kept just before ``clause`` (a request or a question) is only its
    topic: a few words naming the thing asked about ("Dinner tonight, any recommendations",
    "这段代码，帮我优化一下")."""
    if not kept or i == 0 or kept[-1] != _strip_fillers(clauses[i - 1]):
        return False
    return talk.is_topic(kept[-1]) and (bool(_CJK_RUN.search(clause)) or talk.refers_back(clause))


def _statements(body: str, terminator: str) -> list[str]:
    """The statements of one sentence: drop its questions, small talk and commands."""
    if _ANNOTATION.match(body):
        return []
    label = m.group() if (m := _LABEL.match(body)) else ""
    body = label + _THANKS_FOR.sub("", body[len(label) :])
    body = _strip_fillers(P.MEMORY_PREFIX.sub("", _strip_fillers(body)).strip())
    body = P.RESTATED.sub("", body).strip()
    clauses = _rejoined([c for c in _CLAUSE_SPLIT.split(body) if c.strip()], body)
    taken_back = [i for i, c in enumerate(clauses) if P.SELF_CORRECTION.match(_strip_fillers(c))]
    if taken_back:  # "我住在上海，不对，我住在北京": only what follows the correction counts
        clauses = clauses[taken_back[-1] + 1 :]
        body = ("，" if _CJK_RUN.search(body) else ", ").join(clauses)
    lead = 0  # "Just so you know, …", "跟你说过的，…": a lead-in that says nothing itself
    while (
        lead < len(clauses) - 1
        and _size(clauses[lead]) <= 4
        and not _about_the_user(clauses[lead])
        and _OWN_SUBJECT.match(clauses[lead + 1].strip())
    ):
        lead += 1
    if lead:
        clauses = clauses[lead:]
        body = ("，" if _CJK_RUN.search(body) else ", ").join(clauses)
    kept: list[str] = []
    asked = False
    for i, clause in enumerate(clauses):
        clause = _strip_fillers(clause)
        # "?" closes the last clause, and any that opens as a question does ("What stack
        # are we on again, and who's my manager?")
        end = terminator if i == len(clauses) - 1 or _WH_OPENING.match(clause) else ""
        requested = bool(P.COMMAND.match(clause) or P.REQUEST.match(clause) or talk.asks(clause))
        if (requested or _is_question(clause, end)) and _topic_of(clause, kept, clauses, i):
            kept.pop()  # "My resume, can you polish it": the topic is what is asked about
        if requested:
            asked = True
            continue
        if asked and not _SUBJECT.match(clause):
            break  # what follows a command is its object, not a statement ("帮我写个防抖函数，
            # 我们用的是 TypeScript" says a fact after the request: it has a subject of its own)
        if (
            clause
            and not _is_chitchat(clause)
            and not _is_question(clause, end)
            and not _is_talk(clause)
        ):
            kept.append(clause)
    if not kept:
        return []
    # "我很忙，在赶项目": the passing state goes, its subject stays with what follows
    first = _strip_fillers(clauses[0])
    if (
        kept[0] != first
        and P.PASSING.match(first)
        and not _OWN_SUBJECT.match(kept[0])
        and (opening := _SUBJECT.match(first))
    ):
        kept[0] = _with_subject(kept[0], opening.group())
    introduction = _INTRODUCTION.match(kept[0])
    if len(kept) > 1 and (introduction or _self_contained(kept[0])):
        subject = m.group() if (m := _SUBJECT.match(kept[0])) else ""
        copula = introduction.group(1).replace("我叫", "我是") if introduction else ""
        split = [kept[0]]
        for clause in kept[1:]:
            carried = (
                _described(clause, copula)
                if copula and _DESCRIPTION.match(clause)
                else _with_subject(clause, subject)
            )
            if not _self_contained(carried):
                break
            split.append(carried)
        else:
            return split
    if len(kept) == len(clauses):
        return [body]
    return ["，".join(kept) if _CJK_RUN.search(body) else ", ".join(kept)]


# Who the user is: a statement that names them, their job or their employer is a profile
# item however it is worded ("我在字节做产品经理", "I joined Stripe").
_IDENTITY = frozenset({"name", "job", "employer"})
# Words of grammar that open a sentence ("we", "my", "the", "since"): a statement typed in
# lower case is raised at such a word only, never at a name spelt in lower case ("npm",
# "iPhone", "macOS") or an identifier.
_OPENERS = P.STOP_WORDS - P._names("use|uses|used|using|get|got|go|went|up") | P._names(
    "a|an|the|i'm|i've|i'd|i'll|we're|we've|we'd|we'll|just|also|actually|now|currently|today|"
    "yesterday|recently|lately|last|next|every|since|after|before|when|still|usually|always|never"
)


def _capitalised(text: str) -> str:
    """A statement typed in lower case, raised at its first word ("we switched …" → "We …")."""
    m = re.match(r"[a-z']+(?![\w.])", text)
    if m and m.group() in _OPENERS and not _CJK_RUN.search(text):
        return text[0].upper() + text[1:]
    return text


def _is_profile(text: str) -> bool:
    if P.PROFILE_CUE.search(text):
        return True
    return any(hit.attribute.key in _IDENTITY for hit in P.find_attributes(text))


def _candidate(text: str, source_ids: list[str]) -> Candidate:
    text = _capitalised(text)
    proactive = bool(P.PROACTIVE.search(text))
    layer: Layer = "profile" if _is_profile(text) and not proactive else "fact"
    return Candidate(text=text, layer=layer, proactive=proactive, source_ids=source_ids)


def extract_candidates(messages: list[Message]) -> list[Candidate]:
    """Candidate memories from the user's own declarative statements, deduplicated.

    Assistant messages are context only: what the assistant says is never the user's fact.
    """
    found: dict[str, tuple[str, list[str]]] = {}  # key → (first wording, source ids)
    for message in (m for m in messages if m.role == "user"):
        for body, terminator in _sentences(message.content):
            if len(body) > MAX_SENTENCE:
                continue
            for text in _statements(body, terminator):
                if not _too_short(text) and _worth_keeping(text):
                    ids = found.setdefault(_key(text), (text, []))[1]
                    if message.id and message.id not in ids:
                        ids.append(message.id)
    return [_candidate(text, ids) for text, ids in found.values()]


class HeuristicExtractor:
    """Rule-based :class:`~memhub.providers.types.Extractor`; see :func:`extract_candidates`."""

    async def extract(self, messages: list[Message]) -> list[Candidate]:
        # Rules over up to 32,000 characters (what the write path lets the extractor read),
        # ~10 ms per 1,000: never in place on the event loop, and in a server's worker
        # process, where a loop of regexes preempted while it holds the GIL cannot stall
        # every other request.
        size = max(sum(len(m.content) for m in messages), cpu.SMALL + 1)
        return await cpu.run(size, extract_candidates, messages)


# -- Judge ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Facts:
    """What the judge reads off one statement."""

    text: str
    key: str
    tokens: frozenset[str]
    topic: frozenset[str]
    plain: frozenset[str]  # tokens with the negation words removed
    numbers: frozenset[str]  # without years: a year dates an event, it does not measure a state
    all_numbers: frozenset[str]
    negated: bool
    future: bool
    hits: tuple[P.Hit, ...]
    replacement: tuple[str, str] | None
    switch: tuple[str, str] | None  # (verb, new value): "改喝拿铁" names only the new drink


def _clean_term(term: str | None) -> str:
    """A replaced or retired value; never a pronoun or particle ("我换成了…" names no old value)."""
    term = P.clean_value(P.TERM_EDGES.sub("", term or ""))
    if term in P.STOP_WORDS or all(c in P.STOP_CHARS or not c.isalnum() for c in term):
        return ""
    return term


@lru_cache(maxsize=4096)
def _facts(text: str) -> _Facts:
    text = P.first_person(text.strip()[:MAX_JUDGED])
    folded = _fold(text)
    tokens = _tokens(_drop_fillers(folded))
    replacement = None
    for pattern in P.REPLACEMENTS:
        if (m := pattern.search(text)) and (old := _clean_term(m["old"])):
            replacement = (old, _clean_term(m["new"]))
            break
    else:  # "I sold the Civic", "我从阿里离职了": an old value retired without a new one
        for pattern in P.DEPARTURES:
            if (m := pattern.search(text)) and (old := _clean_term(m["old"])):
                replacement = (old, "")
                break
    return _Facts(
        text=text,
        key=_key(text),
        tokens=frozenset(tokens),
        topic=frozenset(_topic(_tokens(P.CHANGE_MARKERS.sub(" ", _drop_fillers(folded))))),
        plain=frozenset(_tokens(P.NEGATION.sub(" ", _drop_fillers(folded)))),
        numbers=frozenset(_NUMBER.findall(_YEAR.sub(" ", folded))),
        all_numbers=frozenset(_NUMBER.findall(folded)),
        negated=bool(P.NEGATION.search(text)),
        future=bool(P.FUTURE.search(text)),
        hits=tuple(P.find_attributes(text)),
        replacement=replacement,
        switch=next(((m["verb"], m["new"]) for p in P.SWITCHES if (m := p.search(text))), None),
    )


def _mentions(text: str, term: str) -> bool:
    """Whole-word mention (so "vim" is not found in "neovim"; CJK needs no boundaries)."""
    if not term:
        return False
    words = [re.escape(w) for w in term.split()]
    before = r"(?<![a-z0-9])" if re.match(r"[a-z0-9]", term) else ""
    after = r"(?![a-z0-9])" if re.search(r"[a-z0-9]$", term) else ""  # "跑步5公里" holds 跑步
    return bool(re.search(before + r"\s*".join(words) + after, _fold(text)))


def _stem(word: str) -> str:
    return re.sub(r"(?:ing|ed|es|e|s)$", "", word) if len(word) > 5 else word


def _mentions_form(text: str, term: str) -> bool:
    """``_mentions``, or an English one-word term in another form ("smoking" / "smoke")."""
    if _mentions(text, term):
        return True
    if not re.fullmatch(r"[a-z]{6,}", term):
        return False
    return bool(
        re.search(r"(?<![a-z])" + re.escape(_stem(term)) + r"[a-z]{0,4}(?![a-z])", _fold(text))
    )


def _contains(a: str, b: str) -> bool:
    """One value refines the other ("北京" / "北京朝阳", "coffee" / "coffee and tea")."""
    if re.search(r"\d", a + b):
        return False
    if _CJK_RUN.search(a) and _CJK_RUN.search(b):
        return a in b or b in a
    x, y = set(a.split()), set(b.split())
    return x <= y or y <= x


@dataclass(frozen=True)
class _Relation:
    action: str  # NOOP · OVERRIDE · SUPPLEMENT
    update_type: str
    reason: str
    only_best: bool = False  # an OVERRIDE read off the wording, not a slot: the nearest only


def _same_slot(attr: P.Attribute, a: str | None, b: str | None) -> bool:
    # A missing slot matches any: "最喜欢 Python" vs "最爱的语言是 Java".
    return a == b if a is not None and b is not None else not attr.needs_slot


def _compare_attributes(c: _Facts, n: _Facts) -> _Relation | None:
    """The table's verdict: same attribute and slot with another value is a conflict."""
    found: list[_Relation] = []
    for hc in c.hits:
        for hn in n.hits:
            attr = hc.attribute
            if attr.key != hn.attribute.key or not _same_slot(attr, hc.slot, hn.slot):
                continue
            what = attr.key + (f" ({hc.slot or hn.slot})" if hc.slot or hn.slot else "")
            old, new = hn.value, hc.value
            if old == new:
                if c.negated != n.negated:
                    found.append(_Relation("OVERRIDE", "negation", f"{what}: '{new}' negated"))
                elif not (attr.multi or c.future or n.future) and len(c.topic - n.topic) <= 2:
                    found.append(_Relation("NOOP", "duplicate", f"{what}: '{new}' restated"))
            elif attr.multi or _contains(old, new):
                found.append(
                    _Relation("SUPPLEMENT", "complement", f"{what}: '{new}' besides '{old}'")
                )
            elif attr.stateful and (c.future or n.future):
                found.append(
                    _Relation("SUPPLEMENT", "planned_change", f"{what}: '{old}' until then")
                )
            else:
                found.append(_Relation("OVERRIDE", attr.update_type, f"{what}: '{old}' → '{new}'"))
    return min(
        found,
        key=lambda r: ("OVERRIDE", "NOOP").index(r.action) if r.action != "SUPPLEMENT" else 2,
        default=None,
    )


def _replacement_label(old: str, new: str) -> str:
    if re.search(P.ZH_TIME + "|" + P.EN_TIME, old) and re.search(P.ZH_TIME + "|" + P.EN_TIME, new):
        return "schedule_change"
    if re.search(r"\d", old) and re.search(r"\d", new):
        return "version_change"
    return "tool_replaced"


def _switched_from(switch: tuple[str, str], stored: str) -> bool:
    """Whether ``stored`` says what the user ``verb``-ed before the switch to another value."""
    verb, new = switch
    if _mentions(stored, new.lower()) or new in stored:
        return False
    if _CJK_RUN.match(verb):
        return bool(re.search(rf"{verb}(?!了?\s*$)", stored))
    ending = "(?:e|es|ing)" if verb.lower() in ("us", "driv", "rid") else "(?:e|es|s|ing)?"
    return bool(re.search(rf"(?i)\b{verb}{ending}\b", stored))


def _relate(c: _Facts, n: _Facts, score: float | None = None) -> _Relation | None:
    """How a candidate relates to one neighbour (``score``: its similarity, 0..1, if known);
    ``None`` when they are unrelated."""
    if c.key == n.key:
        return _Relation("NOOP", "duplicate", "same statement")
    one_person = same_person(c.text, n.text)
    by_table = _compare_attributes(c, n) if one_person else None
    if by_table and by_table.action == "OVERRIDE":
        return by_table
    old, new = c.replacement or ("", "")
    replaces = bool(old) and _mentions_form(n.text, old) and not _mentions(n.text, new)
    if by_table and by_table.action == "NOOP" and not replaces:
        return by_table  # "switched from Vue 3 to React" names Vue 3 again, but to retire it
    if replaces:
        if c.future:
            return _Relation(
                "SUPPLEMENT", "planned_change", f"plan to replace '{old}' with '{new}'"
            )
        if not new:
            return _Relation("OVERRIDE", "no_longer", f"'{old}' no longer holds")
        return _Relation("OVERRIDE", _replacement_label(old, new), f"'{old}' replaced by '{new}'")
    if c.switch and not c.future and _switched_from(c.switch, n.text):
        verb, new_value = c.switch
        return _Relation("OVERRIDE", "preference_change", f"now {verb} '{new_value}'")
    if not c.future and (label := changed_value(c.text, c.topic, n.text, n.topic)):
        return _Relation("OVERRIDE", label, "the same said with a new value", only_best=True)
    same_polarity = c.negated == n.negated
    covered = len(c.tokens) >= 2 and len(c.tokens & n.tokens) >= COVERED * len(c.tokens)
    # Close wordings, unless the candidate says a thing the neighbour does not: "… for
    # search" is not "… for billing", and "前端用 React，后端用 Go" tells more than "前端用 React".
    # A hedge is no more to say ("听说 API 网关用 Kong"): the same said at another epistemic
    # level stays a restatement, which the write path reports as a correction to consider.
    near = _dice(c.tokens, n.tokens) >= NEAR_DUPLICATE
    more = (
        near
        and not covered
        and says_more(c.text, n.text)
        and infer_epistemic(c.text) == infer_epistemic(n.text)
    )
    if same_polarity and one_person and c.all_numbers <= n.all_numbers:
        if covered or (near and not more):
            return _Relation("NOOP", "duplicate", "already stated")
        if more and not says_more(n.text, c.text) and c.future == n.future:
            return _Relation("OVERRIDE", "extended", "said again with more", only_best=True)
    if (
        (score is None or score >= RESTATED)
        and c.all_numbers == n.all_numbers
        and same_polarity
        and restates(c.text, n.text)
    ):
        return _Relation("NOOP", "duplicate", "said again in other words")
    if by_table:
        return by_table
    if not same_polarity and _overlap(c.plain, n.plain) >= NEGATED_SAME:
        return _Relation("OVERRIDE", "negation", "same statement, opposite polarity")
    topic = _overlap(c.topic, n.topic)
    renumbered = not (c.numbers <= n.numbers or n.numbers <= c.numbers)
    if c.numbers and n.numbers and renumbered and topic >= RENUMBERED_TOPIC:
        dotted = any("." in x for x in c.numbers | n.numbers)
        label = (
            "version_change"
            if dotted or any(h.attribute.key == "version" for h in c.hits + n.hits)
            else "value_change"
        )
        return _Relation("OVERRIDE", label, f"{sorted(n.numbers)} → {sorted(c.numbers)}")
    if topic >= SAME_TOPIC:
        return _Relation("SUPPLEMENT", "complement", "same topic, compatible")
    return None


def _invalid(text: str) -> str | None:
    if _content_len(text) < 2:
        return "no statement"
    if _is_question(text, text.rstrip()[-1:]):
        return "a question, not a statement"
    if talk.asks(_strip_fillers(text)):
        return "a request or a question, by its shape"
    if _is_chitchat(text):
        return "small talk"
    return None


def _slot_values(facts: _Facts) -> set[tuple[str, str]]:
    return {(h.attribute.key, h.value) for h in facts.hits if not h.attribute.multi}


def _part_of(n: _Facts, c: _Facts) -> bool:
    """Whether ``n`` fills some of the slots ``c`` fills, with the same values, and no other."""
    mine, theirs = _slot_values(c), _slot_values(n)
    return bool(theirs) and theirs < mine and not (c.negated or n.negated)


def _said_in_part(
    cand: _Facts, related: list[tuple[str, _Relation]], contents: dict[str, str]
) -> list[tuple[str, _Relation]]:
    """A candidate that changes one slot and restates another ("I work at Acme as a data
    engineer" against "I left Acme, now I'm at Globex" and "I'm a data engineer") overrides:
    the restated memories, which say only part of it, become part of the new version rather
    than making the whole a NOOP that leaves the old employer current."""
    changed = next((r for _, r in related if r.action == "OVERRIDE" and not r.only_best), None)
    if changed is None:
        return related
    out, parts = [], []
    for nid, r in related:
        if r.action in ("NOOP", "SUPPLEMENT") and _part_of(_facts(contents[nid]), cand):
            parts.append((nid, _Relation("OVERRIDE", changed.update_type, f"{r.reason}, in part")))
        else:
            out.append((nid, r))
    return out + parts  # the memory the change is read off leads the new version's chain


def judge_item(item: JudgeItem) -> Verdict:
    """Decide one candidate against its neighbours (existing current memories, best first)."""
    text = item.candidate.text.strip()
    if reason := _invalid(text):
        return Verdict(action="INVALID", reason=reason)
    if P.PRONOUN_SUBJECT.match(text) and not talk.dummy_it(text):
        return Verdict(action="NEED_CONTEXT", reason="pronoun subject, nothing to refer to")
    if not item.neighbours:
        return Verdict(action="ADD", reason="nothing similar stored")
    cand = _facts(text)
    related = [
        (n.id, r) for n in item.neighbours if (r := _relate(cand, _facts(n.content), n.score))
    ]
    related = _said_in_part(cand, related, {n.id: n.content for n in item.neighbours})
    for action in ("NOOP", "OVERRIDE", "SUPPLEMENT"):
        chosen = [(nid, r) for nid, r in related if r.action == action]
        if action == "OVERRIDE" and chosen and all(r.only_best for _, r in chosen):
            chosen = chosen[:1]
        if chosen:
            targets = [nid for nid, _ in chosen][: 1 if action == "NOOP" else None]
            _, first = chosen[0]
            return Verdict(
                action=action, targets=targets, update_type=first.update_type, reason=first.reason
            )
    return Verdict(action="ADD", reason="no stored memory says the same or conflicts")


class HeuristicJudge:
    """Rule-based :class:`~memhub.providers.types.Judge`; see :func:`judge_item`."""

    free: bool = True
    """Costs nothing per call, so the write path may show it weaker neighbours too."""

    async def judge(self, items: list[JudgeItem]) -> list[Verdict]:
        return await asyncio.to_thread(lambda: [judge_item(item) for item in items])
