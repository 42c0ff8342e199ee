"""memhub for LangChain: agent middleware, a retriever, a chat history and a classic chain memory.

Example:
    >>> from langchain.agents import create_agent
    >>> from memhub import MemoryClient
    >>> from memhub_langchain import MemHubMiddleware
    >>> agent = create_agent(model, middleware=[MemHubMiddleware(MemoryClient(), user_id="alice")])

``MemHubMemory`` (classic chains) needs ``pip install "memhub-langchain[classic]"``
and is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memhub_langchain.history import MemHubChatMessageHistory
from memhub_langchain.middleware import MemHubMiddleware, MemHubState
from memhub_langchain.retriever import MemHubRetriever

if TYPE_CHECKING:
    from memhub_langchain.memory import MemHubMemory

__all__ = [
    "MemHubChatMessageHistory",
    "MemHubMemory",
    "MemHubMiddleware",
    "MemHubRetriever",
    "MemHubState",
]


def __getattr__(name: str) -> Any:
    if name == "MemHubMemory":
        from memhub_langchain.memory import MemHubMemory

        return MemHubMemory
    raise AttributeError(f"module 'memhub_langchain' has no attribute {name!r}")
