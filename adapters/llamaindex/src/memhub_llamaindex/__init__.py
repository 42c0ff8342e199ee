"""memhub for LlamaIndex: a long-term memory block and a memory that adds every turn.

Example:
    >>> from llama_index.core.chat_engine import SimpleChatEngine
    >>> from memhub_llamaindex import MemHubMemory
    >>> memory = MemHubMemory.from_defaults(client=client, user_id="alice")
    >>> SimpleChatEngine.from_defaults(llm=llm, memory=memory).chat("hi")
"""

from memhub_llamaindex.block import MemHubMemoryBlock
from memhub_llamaindex.memory import MemHubMemory

__all__ = ["MemHubMemory", "MemHubMemoryBlock"]
