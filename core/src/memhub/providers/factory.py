"""Choosing the extractor and judge: injected objects first, then keys, then the
offline heuristic.
"""

from __future__ import annotations

from memhub.config import Settings
from memhub.errors import InvalidInputError
from memhub.providers.llm import LLM, OpenAICompatibleLLM
from memhub.providers.types import Extractor, Judge


def build_extractor(settings: Settings, llm: Extractor | LLM | None = None) -> Extractor:
    if isinstance(llm, Extractor):
        return llm
    model = _model(llm, "llm") or (_hosted(settings, "llm") if settings.llm_api_key else None)
    if model is not None:
        from memhub.providers.llm_roles import LLMExtractor

        return LLMExtractor(model, max_chars=settings.procedure_source_max_chars)
    from memhub.providers.heuristic import HeuristicExtractor

    return HeuristicExtractor()


def build_judge(
    settings: Settings, jev: Judge | LLM | None = None, llm: Extractor | LLM | None = None
) -> Judge:
    if isinstance(jev, Judge) and isinstance(jev.free, bool):
        return jev
    if hasattr(jev, "judge"):
        raise InvalidInputError(
            f"{type(jev).__name__} lacks `free: bool`, which a Judge declares "
            "(memhub.providers.types.Judge): True for an offline judge, False for a model"
        )
    model = _model(jev, "jev")
    if model is None and not isinstance(llm, Extractor):  # an injected model plays both roles
        model = _model(llm, "llm")
    if model is None and (settings.jev_api_key or settings.llm_api_key):
        model = _hosted(settings, "jev" if settings.jev_api_key else "llm")
    if model is not None:
        from memhub.providers.llm_roles import LLMJudge

        return LLMJudge(model, max_chars=settings.jev_max_question_chars)
    from memhub.providers.heuristic import HeuristicJudge

    return HeuristicJudge()


def _model(injected: object, name: str) -> LLM | None:
    """The injected model, if any: an object with ``complete_json`` (the ``LLM`` port)."""
    if injected is None or isinstance(injected, LLM):
        return injected
    raise InvalidInputError(
        f"{name} must be an LLM (async complete_json(system, user) -> dict), "
        f"not {type(injected).__name__}"
    )


def _hosted(settings: Settings, role: str) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM.from_settings(settings, role)
