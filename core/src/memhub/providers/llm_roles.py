"""The extractor and the judge, played by an LLM (prompts and parsing; no I/O of their own)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from memhub.errors import ProviderError
from memhub.models import Procedure
from memhub.providers.llm import LLM, OpenAICompatibleLLM
from memhub.providers.types import Candidate, JudgeItem, Message, Verdict
from memhub.text import fit

if TYPE_CHECKING:
    from memhub.messages import Turn

__all__ = ["LLMExtractor", "LLMJudge", "LLMProcedureExtractor", "OpenAICompatibleLLM"]

EXTRACT_PROMPT = """You extract long-term memories about the USER from a conversation.
Return JSON: {"candidates": [{"text": str, "layer": "profile"|"fact", "proactive": bool, \
"source_ids": [str]}]}.
- Only what the user states or clearly confirms about themselves, their people, preferences, \
plans, work and projects; never the assistant's suggestions.
- Do NOT store: requests or commands to the assistant ("translate…", "tell me a joke", "remind me \
which city I live in"), questions, greetings, thanks and acknowledgements, reactions, opinions \
about the assistant's answers ("you're wrong"), deferrals ("let me think about it", \
"我想想再说"), or talk about the memory itself ("forget what I just said", "你还记得吗").
- When the user says a value changed (moved, new job, new phone, upgraded, no longer…), state the \
new value as it is now ("the user lives in Munich"), not the change alone.
- Each text is one self-contained statement in the user's language.
- layer "profile": stable attributes of the user (name, city, job, employer, preferences, habits). \
"fact": everything else worth keeping.
- proactive: true for plans, reminders, deadlines and other time-bound items.
- source_ids: the [id] of the messages each statement comes from.
- Return {"candidates": []} when nothing is worth remembering."""

JUDGE_PROMPT = """You decide how new candidate memories relate to existing ones. For EACH item \
return one verdict.
Return JSON: {"verdicts": [{"index": int, "action": str, "targets": [existing ids], "update_type": \
str, "reason": str}]}.
Actions:
- ADD: new information.
- NOOP: an existing memory already says the same (target it).
- OVERRIDE: the same attribute now has a different value, or the candidate says the old value no \
longer holds; the old one is outdated (target it). Existing memories may come from earlier \
conversations: a newer statement wins.
- SUPPLEMENT: compatible, complementary information; both stay (target the related ones).
- INVALID: the candidate is not a real statement or contradicts its source.
- NEED_CONTEXT: the candidate cannot be understood without context it lacks.
- RAW_ONLY: keep only the raw conversation, store nothing structured.
Targets must be ids from that item's existing memories."""


def _messages_block(messages: list[Message]) -> str:
    return "\n".join(f"[{m.id or i}] {m.role}: {m.content}" for i, m in enumerate(messages))


def _cited(candidate: Candidate, messages: list[Message]) -> Candidate:
    """The candidate citing only ids it was shown: its ``source_ids`` become evidence.

    An id the model made up is dropped; with none left, the candidate cites every
    message of the write (it came from them, and governing them must reach it).
    """
    sent = [m.id for m in messages if m.id]
    kept = [i for i in dict.fromkeys(candidate.source_ids) if i in set(sent)]
    return candidate.model_copy(update={"source_ids": kept or sent})


class LLMExtractor:
    """Candidates from one LLM call."""

    def __init__(self, llm: LLM, *, max_chars: int = 24000) -> None:
        self.llm, self.max_chars = llm, max_chars

    async def extract(self, messages: list[Message]) -> list[Candidate]:
        block = _messages_block(messages)[-self.max_chars :]
        data = await self.llm.complete_json(EXTRACT_PROMPT, block)
        try:
            found = [Candidate.model_validate(c) for c in data.get("candidates", [])]
        except (ValidationError, TypeError, AttributeError) as err:
            raise ProviderError(f"the extractor returned malformed candidates: {err}") from err
        return [_cited(c, messages) for c in found]


class LLMJudge:
    """Every candidate of one write judged in one LLM call."""

    free = False

    def __init__(self, llm: LLM, *, max_chars: int = 16000) -> None:
        self.llm, self.max_chars = llm, max_chars

    def _question(self, items: list[JudgeItem]) -> str:
        entries: list[dict[str, Any]] = [
            {
                "index": i,
                "candidate": it.candidate.text,
                "existing": [
                    {"id": n.id, "content": n.content, "similarity": n.score} for n in it.neighbours
                ],
            }
            for i, it in enumerate(items)
        ]
        text = json.dumps(entries, ensure_ascii=False)
        # Over budget: drop the oldest (weakest) neighbours first, never a candidate.
        while len(text) > self.max_chars and any(e["existing"] for e in entries):
            longest = max(entries, key=lambda e: len(e["existing"]))
            longest["existing"].pop()
            text = json.dumps(entries, ensure_ascii=False)
        return text[: self.max_chars]

    async def judge(self, items: list[JudgeItem]) -> list[Verdict]:
        data = await self.llm.complete_json(JUDGE_PROMPT, self._question(items))
        by_index: dict[int, Verdict] = {}
        try:
            for raw in data.get("verdicts", []):
                index = int(raw.get("index", len(by_index)))
                if not 0 <= index < len(items) or index in by_index:
                    raise ValueError(
                        f"index {index} is not one of the {len(items)} items sent, once"
                    )
                verdict = Verdict.model_validate({k: v for k, v in raw.items() if k != "index"})
                shown = {n.id for n in items[index].neighbours}  # targets only among what was shown
                by_index[index] = verdict.model_copy(
                    update={"targets": [t for t in verdict.targets if t in shown]}
                )
        except (ValidationError, TypeError, ValueError, AttributeError) as err:
            raise ProviderError(f"the judge returned malformed verdicts: {err}") from err
        # A verdict the model forgot is treated as ADD: never lose a candidate silently.
        return [
            by_index.get(i, Verdict(action="ADD", reason="no verdict returned"))
            for i in range(len(items))
        ]


PROCEDURE_PROMPT = """From this engineering session, extract reusable experience: problems that \
were solved.
Return JSON: {"procedures": [{"task": str, "solution": str, "search_keys": [str], "boundary_envs": \
[str],
"boundary_scope": "strict"|"project"|"user"|"global"}]}.
- task: the problem as someone would search for it later (include the error text).
- solution: what fixed it, concretely (commands, settings, code changes).
- search_keys: error strings, identifiers, file names, commands.
- boundary_envs: environments it depends on (language, database, OS, versions).
- boundary_scope: project when it depends on this codebase, user for personal setup, global when \
it is general.
Return {"procedures": []} when nothing was solved."""


class LLMProcedureExtractor:
    """Procedures from one LLM call over user requests and assistant answers (never
    tool outputs).
    """

    def __init__(self, llm: LLM, *, max_chars: int = 24000) -> None:
        self.llm, self.max_chars = llm, max_chars

    async def extract(self, turns: Sequence[Turn]) -> list[Procedure]:
        user = [t.content for t in turns if t.role == "user" and t.content]
        answers = [t.content for t in turns if t.role == "assistant" and t.content]
        user, answers = fit(user, answers, self.max_chars)
        shown, ua = [], iter(user)
        answers_iter = iter(answers)
        for t in turns:
            if t.content and t.role == "user":
                shown.append(f"user: {next(ua)}")
            elif t.content and t.role == "assistant":
                shown.append(f"assistant: {next(answers_iter)}")
        data = await self.llm.complete_json(PROCEDURE_PROMPT, "\n".join(shown))
        try:
            return [Procedure.model_validate(p) for p in data.get("procedures", [])]
        except (ValidationError, TypeError, AttributeError) as err:
            raise ProviderError(
                f"the procedure extractor returned malformed procedures: {err}"
            ) from err
