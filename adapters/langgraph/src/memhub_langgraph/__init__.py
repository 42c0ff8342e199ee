"""memhub for LangGraph: a ``BaseStore``, a checkpointer and memory nodes, on memhub's Qdrant
backend.

Example:
    >>> from memhub import MemoryClient
    >>> from memhub_langgraph import MemHubCheckpointer, MemHubStore
    >>> client = MemoryClient(storage_dir="./.memhub_data")
    >>> graph = builder.compile(checkpointer=MemHubCheckpointer(client), store=MemHubStore(client))
"""

from memhub_langgraph import _collections  # noqa: F401  (registers the checkpointer's)
from memhub_langgraph._items import namespace_scope
from memhub_langgraph.checkpoint import MemHubCheckpointer
from memhub_langgraph.nodes import memory_add_node, memory_search_node
from memhub_langgraph.store import MemHubStore

__all__ = [
    "MemHubCheckpointer",
    "MemHubStore",
    "memory_add_node",
    "memory_search_node",
    "namespace_scope",
]
