"""memhub as Agentica hooks: ``MemHubHooks`` (run hooks) and ``MemHubAgentHooks`` (agent hooks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agentica import AgentHooks, RunHooks

from memhub import UsageError
from memhub.bridge import CHAT_GROUPS, Client
from memhub.models import WriteResult
from memhub_agentica._session import SessionMemory, attach, forget_injected, register_flush

Inject = Literal["user_prompt", "additional_context"]


class MemHubHooks(RunHooks):
    """Recall memhub memories for every user turn and add each run; pass as ``agent.run(msg,
    hooks=hooks)``.

    **Where the memories go.** The memhub quickstart puts them in
    ``agent.prompt_config.additional_context``. That field sits in the *static* zone
    of Agentica's system prompt, ahead of the tools and the whole history, so
    changing it every turn invalidates the provider's prompt cache for the entire
    conversation, and on a shared ``Agent`` it is state that one run can leak into
    another. The hooks recall in ``on_user_prompt`` and, in ``on_llm_start``, append the
    memories to this turn's user message (tagged ``<memhub_memories>``) as the model
    is called, at the end of the prompt, so the cached prefix (system prompt, tools,
    earlier turns) is reused. The user's message itself is left as typed, so
    Agentica's session transcript (export, resume, its ``search_session`` tool) never
    holds a memory block, and when the run ends the block is taken out of Agentica's
    history: only the current turn ever carries one. That is the default,
    ``inject="user_prompt"``. With
    ``inject="additional_context"`` the hooks follow the quickstart literally and
    restore the field when the run ends. Agentica calls ``on_user_prompt`` for a
    string message only: a run given ``messages=[...]`` is recorded but not recalled for.

    **What is stored.** When a run ends (``on_agent_end``) its user and assistant
    messages, with the injected memories taken out and system and tool messages
    dropped, are buffered per (user, session); every ``add_every`` runs the buffer
    is added with one ``client.add(messages=...)``. ``add_every=0`` adds only at
    :meth:`flush_pending`, i.e. once per session, as the quickstart advises. End a
    session with Agentica's own ``await agent.flush_pending()`` (the hooks register
    with the agent on its first run) or ``await hooks.flush_pending(agent)``; a
    session still buffered when the interpreter exits is reported with a warning.

    These are run hooks (``agent.run(msg, hooks=...)``); for ``Agent(hooks=...)``
    use :class:`MemHubAgentHooks`. Put in the wrong slot, either says so.

    Example:
        >>> hooks = MemHubHooks(MemoryClient(), user_id="alice", add_every=0)
        >>> for msg in ["我最喜欢的颜色是蓝色", "我喜欢吃川菜"]:
        ...     await agent.run(msg, hooks=hooks)
        >>> await agent.flush_pending()   # the session, in one add

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient``.
        user_id: whose memory; defaults to ``Agent.user_id``. A run without either fails at start.
        app_id / agent_id: the memhub scope (not Agentica's per-instance agent id).
        limit / groups / template: what is recalled and how it is rendered.
        inject: ``"user_prompt"`` (default) or ``"additional_context"``.
        add_every: add every N runs (default 1); ``0`` only on :meth:`flush_pending`.
    """

    def __init__(
        self,
        client: Client,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 10,
        groups: Sequence[str] = CHAT_GROUPS,
        template: str | None = None,
        inject: Inject = "user_prompt",
        add_every: int = 1,
    ) -> None:
        if inject not in ("user_prompt", "additional_context"):
            raise ValueError('inject must be "user_prompt" or "additional_context"')
        self.memory = SessionMemory(
            client,
            user_id=user_id,
            app_id=app_id,
            agent_id=agent_id,
            limit=limit,
            groups=groups,
            template=template,
            add_every=add_every,
        )
        self.inject = inject
        self.last_write: WriteResult | None = None
        # agent_id -> (the additional_context the user set, the value these hooks set)
        self._contexts: dict[str | None, tuple[str | None, str | None]] = {}
        # agent_id -> the block recalled for the run in progress (inject="user_prompt")
        self._blocks: dict[str | None, str] = {}

    async def on_agent_start(self, agent: Any, **kwargs: Any) -> None:
        self.memory.user_of(agent)  # fail the run early and clearly without a user
        register_flush(agent, self)
        self._blocks.pop(getattr(agent, "agent_id", None), None)  # one left by a failed run

    async def on_start(self, agent: Any, **kwargs: Any) -> None:
        raise UsageError(
            "MemHubHooks are run hooks: pass them per run, `agent.run(msg, hooks=hooks)`; "
            "for `Agent(hooks=...)` use MemHubAgentHooks"
        )

    async def on_user_prompt(self, agent: Any, message: str, **kwargs: Any) -> str | None:
        forget_injected(agent)  # a history from before these hooks were attached
        block = await self.memory.recall(agent, message)
        if self.inject == "user_prompt":
            # Returned here, the block would become the user's own words in Agentica's
            # session transcript (its export, its resume, its search_session tool);
            # on_llm_start puts it in the model call only.
            if block:
                self._blocks[agent.agent_id] = block
            return None
        config = agent.prompt_config
        base, ours = self._contexts.get(agent.agent_id, (None, None))
        if config.additional_context != ours or ours is None:
            base = (
                config.additional_context
            )  # the user's own value, not one left by an unfinished run
        value = "\n\n".join(part for part in (base, block) if part) or None
        config.additional_context = value
        self._contexts[agent.agent_id] = (base, value)
        return None

    async def on_llm_start(self, agent: Any, messages: Any = None, **kwargs: Any) -> None:
        block = self._blocks.get(getattr(agent, "agent_id", None))
        if block:
            attach(messages or [], block)

    async def on_agent_end(self, agent: Any, output: Any, **kwargs: Any) -> None:
        self._blocks.pop(getattr(agent, "agent_id", None), None)
        base, ours = self._contexts.pop(getattr(agent, "agent_id", None), (None, None))
        if ours is not None and agent.prompt_config.additional_context == ours:
            agent.prompt_config.additional_context = base
        self.last_write = await self.memory.record(agent) or self.last_write
        forget_injected(agent)

    async def flush_pending(self, agent: Any = None, **kwargs: Any) -> WriteResult | None:
        """Add the buffered runs now (this agent's session, or all); returns the write, if any."""
        result = await self.memory.flush(agent)
        self.last_write = result or self.last_write
        return result


class MemHubAgentHooks(AgentHooks):
    """memhub for ``Agent(hooks=...)``: a per-session memory snapshot plus the same writes.

    Agent hooks see no user message (``on_start`` runs before it is known), so they
    recall once per session, with the session's first message (Agentica's
    ``TaskAnchor``), and put the result in ``prompt_config.additional_context`` for
    the whole session. The system prompt then stays byte-identical from the second
    turn on and the provider's prompt cache holds, the same trade Agentica makes
    for its own workspace memory (a session snapshot). For fresh recall on every
    turn use :class:`MemHubHooks`.

    Runs are buffered and added like :class:`MemHubHooks` (``add_every``,
    :meth:`flush_pending`); Agentica's ``await agent.flush_pending()`` flushes them.

    Example:
        >>> hooks = MemHubAgentHooks(client, add_every=0)
        >>> agent = Agent(model=model, user_id="alice", hooks=hooks)
        >>> await agent.run("总结一下你了解到的关于我的信息")
        >>> await agent.flush_pending()
    """

    def __init__(
        self,
        client: Client,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 10,
        groups: Sequence[str] = CHAT_GROUPS,
        template: str | None = None,
        add_every: int = 1,
    ) -> None:
        self.memory = SessionMemory(
            client,
            user_id=user_id,
            app_id=app_id,
            agent_id=agent_id,
            limit=limit,
            groups=groups,
            template=template,
            add_every=add_every,
        )
        self.last_write: WriteResult | None = None
        # agent_id -> (the session anchor recalled for, the user's own context, the value set)
        self._snapshots: dict[str, tuple[Any, str | None, str | None]] = {}

    async def on_agent_start(self, agent: Any, **kwargs: Any) -> None:
        raise UsageError(
            "MemHubAgentHooks are agent hooks: pass them as `Agent(hooks=hooks)`; "
            "for `agent.run(msg, hooks=...)` use MemHubHooks"
        )

    async def on_start(self, agent: Any, **kwargs: Any) -> None:
        self.memory.user_of(agent)
        register_flush(agent, self)
        anchor = getattr(agent, "task_anchor", None)
        snapshot = self._snapshots.get(agent.agent_id)
        if anchor is None or (snapshot is not None and snapshot[0] is anchor):
            return  # same session: keep the snapshot, and the prompt cache
        config = agent.prompt_config
        base = (
            snapshot[1]
            if snapshot is not None and config.additional_context == snapshot[2]
            else config.additional_context
        )
        block = await self.memory.recall(agent, anchor.source_query or "")
        value = "\n\n".join(part for part in (base, block) if part) or None
        config.additional_context = value
        self._snapshots[agent.agent_id] = (anchor, base, value)

    async def on_end(self, agent: Any, output: Any, **kwargs: Any) -> None:
        self.last_write = await self.memory.record(agent) or self.last_write

    async def flush_pending(self, agent: Any = None, **kwargs: Any) -> WriteResult | None:
        """Add the buffered runs now (this agent's session, or all); returns the write, if any."""
        result = await self.memory.flush(agent)
        self.last_write = result or self.last_write
        return result
