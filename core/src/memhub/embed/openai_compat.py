"""``OpenAICompatibleEmbedder``: any ``/v1/embeddings`` endpoint (OpenAI, DashScope, vLLM,
Ollama…).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhub.errors import ProviderError


class OpenAICompatibleEmbedder:
    """Hosted embeddings through the ``openai`` SDK.

    Args:
        model: the embedding model name, e.g. ``text-embedding-3-small``.
        dimensions: the vector size; sent to the API when ``send_dimensions`` is true.
        api_key / base_url: as for ``openai.AsyncOpenAI``.
        max_tokens: inputs are cut to about this many tokens (``embed_max_tokens``), counting
            a non-ASCII character as one token (a CJK character or a combining mark is at
            least one) and ``chars_per_token`` ASCII characters as one.
        chars_per_token: ASCII characters per token (``embed_chars_per_token``).
    """

    similarity_floor = 0.0  # hosted models' cosines of unrelated texts sit near 0

    def __init__(
        self,
        model: str,
        dimensions: int,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        send_dimensions: bool = True,
        max_tokens: int = 8192,
        chars_per_token: float = 1.2,
        timeout: float = 30.0,
    ) -> None:
        try:
            import openai
        except ImportError as err:
            raise ImportError('install "memhub[openai]" to use OpenAICompatibleEmbedder') from err
        self._openai = openai
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=3
        )
        self.model = model
        self.dim = dimensions
        self.name = f"openai-compatible/{model}/{dimensions}"
        self._send_dimensions = send_dimensions
        self.max_tokens = max_tokens
        self.chars_per_token = chars_per_token

    def _cut(self, text: str) -> str:
        """The longest prefix whose estimated token count is at most ``max_tokens``."""
        text = text[: int(self.max_tokens * max(self.chars_per_token, 1.0))]
        budget, ascii_cost = float(self.max_tokens), 1.0 / self.chars_per_token
        for i, ch in enumerate(text):
            budget -= ascii_cost if ch < "\x80" else 1.0
            if budget < 0:
                return text[:i]
        return text

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        # the SDK's sentinel for "not sent" changed between versions: leave the key out instead
        kwargs: dict[str, Any] = {"dimensions": self.dim} if self._send_dimensions else {}
        try:
            response = await self._client.embeddings.create(
                model=self.model, input=[self._cut(t) for t in texts], **kwargs
            )
        except self._openai.OpenAIError as err:
            raise ProviderError(f"embedding request to {self.model} failed: {err}") from err
        vectors = [d.embedding for d in sorted(response.data, key=lambda d: d.index)]
        if any(len(v) != self.dim for v in vectors):
            raise ProviderError(
                f"{self.model} returned vectors of size {len(vectors[0])}, expected {self.dim}"
            )
        return vectors

    async def embed_query(self, text: str) -> list[float]:
        return (await self._embed([text]))[0]

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._embed(list(texts)) if texts else []
