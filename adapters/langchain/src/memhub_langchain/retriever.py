"""``MemHubRetriever``: memhub memories as LangChain ``Document``s."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr, SkipValidation, field_validator

from memhub.bridge import ALL_GROUPS, CHAT_GROUPS, Client, MemHub, search_kwargs, selected
from memhub.models import MemoryItem, SearchResult


def to_document(item: MemoryItem, group: str) -> Document:
    """One memory as a ``Document``: its content, and its id, layer, score and
    history as metadata.
    """
    metadata: dict[str, Any] = {
        "id": item.id,
        "layer": item.layer,
        "group": group,
        "score": item.score,
        "created_at": item.created_at,
        "occurred_at": item.occurred_at,
        "valid_from": item.valid_from,
        "valid_to": item.valid_to,
        "evolution_chain": list(item.evolution_chain),
        "user_id": item.user_id,
        "app_id": item.app_id,
        "agent_id": item.agent_id,
        "session_id": item.session_id,
    }
    if item.procedure is not None:
        metadata["procedure"] = item.procedure.model_dump()
    return Document(
        id=item.id,
        page_content=item.content,
        metadata={k: v for k, v in metadata.items() if v is not None},
    )


class MemHubRetriever(BaseRetriever):
    """Search a user's memhub memories from any LangChain chain or tool.

    Returns at most ``k`` documents, best first; each carries ``score``, ``id``,
    ``layer``, ``group``, ``created_at`` and ``evolution_chain`` in its metadata.
    ``k`` and ``user_id`` can be changed per call: ``retriever.invoke(q, k=3, user_id="bob")``.

    Example:
        >>> retriever = MemHubRetriever(client=client, user_id="alice", k=4)
        >>> docs = retriever.invoke("which database do we use?")
        >>> docs[0].metadata["score"], docs[0].metadata["evolution_chain"]

    Args:
        client: a ``SyncMemoryClient`` or ``MemoryClient`` (both serve ``invoke`` and ``ainvoke``).
        user_id: whose memories to search (required, here or per call).
        app_id / agent_id: narrow the search to one app or agent.
        k: number of documents.
        groups: memory groups searched (default ``profile``, ``proactive``, ``normal``;
            add ``procedures`` for coding experience).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: SkipValidation[Client] = Field(exclude=True)
    user_id: str | None = None
    app_id: str | None = None
    agent_id: str | None = None
    k: int = Field(default=4, ge=1, le=200)
    groups: tuple[str, ...] = CHAT_GROUPS

    _memhub: MemHub = PrivateAttr()

    @field_validator("groups")
    @classmethod
    def _known_groups(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = set(value) - set(ALL_GROUPS)
        if unknown:
            raise ValueError(
                f"unknown memory groups {sorted(unknown)}; choose from {list(ALL_GROUPS)}"
            )
        return value

    def model_post_init(self, context: Any, /) -> None:
        self._memhub = MemHub(self.client)

    def _args(self, k: int | None, user_id: str | None) -> dict[str, Any]:
        user = user_id or self.user_id
        if not user:
            raise ValueError(
                "MemHubRetriever needs a user_id (constructor or invoke(..., user_id=...))"
            )
        return search_kwargs(
            user_id=user,
            app_id=self.app_id,
            agent_id=self.agent_id,
            limit=k or self.k,
            groups=self.groups,
        )

    def _documents(self, result: SearchResult, k: int) -> list[Document]:
        ranked = [
            (item, group)
            for group, items in selected(result, self.groups).items()
            for item in items
        ]
        ranked.sort(key=lambda pair: -(pair[0].score or 0.0))
        return [to_document(item, group) for item, group in ranked[:k]]

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        user_id: str | None = None,
    ) -> list[Document]:
        args = self._args(k, user_id)
        return self._documents(self._memhub.search_sync(query, **args), args["limit"])

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        user_id: str | None = None,
    ) -> list[Document]:
        args = self._args(k, user_id)
        return self._documents(await self._memhub.search(query, **args), args["limit"])
