"""memhub for Agentica: hooks that recall long-term memory each turn and persist the session.

Example:
    >>> from memhub import MemoryClient
    >>> from memhub_agentica import MemHubHooks
    >>> hooks = MemHubHooks(MemoryClient(), user_id="alice")
    >>> reply = await agent.run("我最喜欢的颜色是蓝色", hooks=hooks)
"""

from memhub_agentica.hooks import MemHubAgentHooks, MemHubHooks

__all__ = ["MemHubAgentHooks", "MemHubHooks"]
