"""Choosing the extractor and judge: injected objects first, then keys, then the
offline heuristic.
"""

from __future__ import annotations

from typing import Any

from memhub.config import Settings
from memhub.errors import InvalidInputError
from memhub.providers.types import Extractor, Judge


def build_extractor(settings: Settings, llm: Any = None) -> Extractor:
    if llm is not None and hasattr(llm, "extract"):
        return llm
    model = llm if llm is not None else _hosted(settings, "llm") if settings.llm_api_key else None
    if model is not None:
        return _llm_roles().LLMExtractor(model, max_chars=settings.procedure_source_max_chars)
    from memhub.providers.heuristic import HeuristicExtractor

    return HeuristicExtractor()


def build_judge(settings: Settings, jev: Any = None, llm: Any = None) -> Judge:
    if jev is not None and hasattr(jev, "judge"):
        if not isinstance(getattr(jev, "free", None), bool):
            raise InvalidInputError(
                f"{type(jev).__name__} lacks `free: bool`, which a Judge declares "
                "(memhub.providers.types.Judge): True for an offline judge, False for a model"
            )
        return jev
    model = jev
    if (
        model is None and llm is not None and not hasattr(llm, "extract")
    ):  # an injected model plays both roles
        model = llm
    if model is None and (settings.jev_api_key or settings.llm_api_key):
        model = _hosted(settings, "jev" if settings.jev_api_key else "llm")
    if model is not None:
        return _llm_roles().LLMJudge(model, max_chars=settings.jev_max_question_chars)
    from memhub.providers.heuristic import HeuristicJudge

    return HeuristicJudge()


def _hosted(settings: Settings, role: str):
    return _llm_roles().OpenAICompatibleLLM.from_settings(settings, role)


def _llm_roles():
    from memhub.providers import llm_roles

    return llm_roles
