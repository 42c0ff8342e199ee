"""``OpenAICompatibleLLM``: chat completions with JSON output on any OpenAI-compatible API.

OpenAI, DeepSeek, Qwen (DashScope compatible mode), Ollama and vLLM all speak
``/v1/chat/completions``. Transient failures (429, 5xx, timeouts, dropped
connections) are retried with exponential backoff inside a bounded budget; after
that the caller gets one ``ProviderError``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memhub.errors import ProviderError

if TYPE_CHECKING:
    from memhub.config import Settings


@runtime_checkable
class LLM(Protocol):
    """The one thing memhub asks of a language model: a JSON object for a prompt."""

    async def complete_json(self, system: str, user: str) -> dict[str, Any]: ...


class OpenAICompatibleLLM:
    """An LLM behind any OpenAI-compatible endpoint.

    Args:
        model: e.g. ``gpt-4o-mini``, ``deepseek-chat``, ``qwen-plus``.
        api_key / base_url: as for ``openai.AsyncOpenAI``.
        max_attempts: tries per request, the first included.
        max_wait: seconds of backoff in all, at most.
        backoff: the first retry's wait in seconds (doubling, with jitter).

    Example:
        >>> llm = OpenAICompatibleLLM("deepseek-chat", api_key=key, base_url="https://api.deepseek.com/v1")
        >>> await llm.complete_json("Reply in JSON.", "Say hi as {\\"greeting\\": ...}")
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_attempts: int = 4,
        max_wait: float = 60.0,
        backoff: float = 1.0,
    ) -> None:
        try:
            import openai
            import tenacity
        except ImportError as err:
            raise ImportError('install "memhub[openai]" to use OpenAICompatibleLLM') from err
        self._openai, self._tenacity = openai, tenacity
        # retries are ours (tenacity), so the SDK's own are off
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )
        self.model = model
        self.max_attempts, self.max_wait, self.backoff = max_attempts, max_wait, backoff
        self.calls = 0

    @classmethod
    def from_settings(cls, settings: Settings, role: str = "llm") -> OpenAICompatibleLLM:
        """``role`` is ``llm`` or ``jev``; the judge falls back to the llm_* keys."""
        model = getattr(settings, f"{role}_model", None) or settings.llm_model
        base_url = getattr(settings, f"{role}_base_url", None) or settings.llm_base_url
        return cls(
            model,
            api_key=settings.secret(f"{role}_api_key") or settings.secret("llm_api_key"),
            base_url=base_url,
        )

    def _transient(self, err: BaseException) -> bool:
        o = self._openai
        if isinstance(err, o.APIStatusError):
            status: int = err.status_code
            return status == 429 or status >= 500
        return isinstance(err, o.APITimeoutError | o.APIConnectionError)

    async def complete_json(self, system: str, user: str) -> dict[str, Any]:
        t = self._tenacity
        retrying = t.AsyncRetrying(
            retry=t.retry_if_exception(self._transient),
            stop=t.stop_after_attempt(self.max_attempts) | t.stop_after_delay(self.max_wait),
            wait=t.wait_exponential_jitter(multiplier=self.backoff, max=20),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    self.calls += 1
                    response = await self._client.chat.completions.create(
                        model=self.model,
                        messages=[
                            {"role": "system", "content": system},
                            {"role": "user", "content": user},
                        ],
                        response_format={"type": "json_object"},
                        temperature=0,
                    )
        except self._openai.OpenAIError as err:
            raise ProviderError(f"{self.model}: request failed after retries: {err}") from err
        text = response.choices[0].message.content or ""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ProviderError(f"{self.model} did not return JSON: {text[:200]!r}") from err
        if not isinstance(data, dict):
            raise ProviderError(f"{self.model} returned JSON that is not an object")
        return data
