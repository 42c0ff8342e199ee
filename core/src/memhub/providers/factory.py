"""Choosing the extractor and judge: injected objects first, then keys, then the offline heuristic."""

from __future__ import annotations

from typing import Any

from memhub.config import Settings
from memhub.providers.types import Extractor, Judge


def build_extractor(settings: Settings, llm: Any = None) -> Extractor:
    if llm is not None:
        return llm if hasattr(llm, "extract") else _llm_roles().LLMExtractor(llm)
    if settings.llm_api_key:
        roles = _llm_roles()
        return roles.LLMExtractor(roles.OpenAICompatibleLLM.from_settings(settings, "llm"))
    from memhub.providers.heuristic import HeuristicExtractor

    return HeuristicExtractor()


def build_judge(settings: Settings, jev: Any = None, llm: Any = None) -> Judge:
    if jev is not None:
        return jev if hasattr(jev, "judge") else _llm_roles().LLMJudge(jev)
    if llm is not None and not hasattr(llm, "extract"):  # an injected model plays both roles
        return _llm_roles().LLMJudge(llm)
    if settings.jev_api_key or settings.llm_api_key:
        roles = _llm_roles()
        return roles.LLMJudge(
            roles.OpenAICompatibleLLM.from_settings(
                settings, "jev" if settings.jev_api_key else "llm"
            )
        )
    from memhub.providers.heuristic import HeuristicJudge

    return HeuristicJudge()


def _llm_roles():
    from memhub.providers import llm_roles

    return llm_roles
