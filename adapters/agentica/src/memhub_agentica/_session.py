"""What both hook flavours share: the scope of an agent, recall, and the buffered session."""

from __future__ import annotations

import atexit
import re
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

from agentica import Message, RunHooks
from agentica.agent.hooks import _CompositeRunHooks

from memhub.bridge import Client, MemHub, render, search_kwargs
from memhub.models import WriteResult

OPEN_TAG, CLOSE_TAG = "<memhub_memories>", "</memhub_memories>"
_INJECTED = re.compile(rf"\s*{OPEN_TAG}.*?{CLOSE_TAG}\s*", re.DOTALL)
_ROLES = ("user", "assistant")


def wrap(block: str) -> str:
    """The memory block as it is appended to a user prompt, tagged so it can be taken out again."""
    return f"{OPEN_TAG}\n{block}\n{CLOSE_TAG}"


def strip_injected(text: str) -> str:
    return _INJECTED.sub("\n\n", text).strip()


def attach(messages: Sequence[Message], block: str) -> None:
    """Append the tagged block to the latest user message of a model call, once per turn.

    Every model call of a turn (one per tool round) sees the block; a user turn that
    carries one already (an earlier round of this turn) is left as it is.
    """
    users = [m for m in messages if m.role == "user"]
    if not users or any(OPEN_TAG in _text(m.content) for m in users):
        return
    last = users[-1]
    if isinstance(last.content, list):
        last.content = [*last.content, {"type": "text", "text": wrap(block)}]
    else:
        last.content = f"{_text(last.content)}\n\n{wrap(block)}"


def forget_injected(agent: Any) -> None:
    """Take the memory blocks out of the user turns Agentica keeps as history.

    Each turn is sent with the memories recalled for it; once the turn is over its
    block is stale, and left in the history every later prompt would carry one
    block per earlier turn. Only the current turn carries a block.
    """
    memory = getattr(agent, "working_memory", None)
    responses = [run.response for run in getattr(memory, "runs", None) or []]
    responses.append(getattr(agent, "run_response", None))
    messages = list(getattr(memory, "messages", None) or [])
    for response in responses:
        messages += getattr(response, "messages", None) or []
    for message in messages:
        content = message.content
        if message.role != "user":
            continue
        if isinstance(content, str) and OPEN_TAG in content:
            message.content = strip_injected(content)
        elif isinstance(content, list):
            message.content = [p for p in content if not _is_block(p)]


def _is_block(part: Any) -> bool:
    return isinstance(part, dict) and str(part.get("text", "")).startswith(OPEN_TAG)


class _Flusher(RunHooks):
    """Sits in the agent's default run hooks, so Agentica's ``await agent.flush_pending()``
    (which only reaches those: per-run hooks are cleared after each run) drains memhub."""

    def __init__(self, hooks: Any) -> None:
        self.hooks = hooks

    async def flush_pending(self, agent: Any, **kwargs: Any) -> None:
        await self.hooks.flush_pending(agent)


def register_flush(agent: Any, hooks: Any) -> None:
    """Make ``agent.flush_pending()`` flush ``hooks`` too (once per agent and hooks)."""
    default = getattr(agent, "_default_run_hooks", None)
    members = default._hooks_list if isinstance(default, _CompositeRunHooks) else [default]
    if any(isinstance(h, _Flusher) and h.hooks is hooks for h in members):
        return
    flusher = _Flusher(hooks)
    if isinstance(default, _CompositeRunHooks):
        default._hooks_list.append(flusher)
    else:
        agent._default_run_hooks = _CompositeRunHooks([h for h in (default, flusher) if h])


_LIVE: weakref.WeakSet[SessionMemory] = weakref.WeakSet()


@atexit.register
def _warn_unflushed() -> None:
    """A session buffered but never added is lost with the process: say so, loudly."""
    for memory in list(_LIVE):
        for (user_id, session_id), (messages, runs) in memory._buffers.items():
            if messages:
                warnings.warn(
                    f"memhub: {runs} run(s) of session {session_id!r} (user {user_id!r}) were "
                    "buffered and never added to memory; end each session with "
                    "`await agent.flush_pending()` (or `await hooks.flush_pending(agent)`)",
                    RuntimeWarning,
                    stacklevel=1,
                )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def run_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """A run's user and assistant turns as OpenAI-style dicts, without the injected memories.

    System and tool messages are dropped; assistant tool calls are kept so memhub
    can recognise a coding session.
    """
    out = []
    for message in messages:
        if message.role not in _ROLES:
            continue
        text = _text(message.content)
        converted: dict[str, Any] = {
            "role": message.role,
            "content": strip_injected(text) if message.role == "user" else text,
        }
        if message.role == "assistant" and message.tool_calls:
            converted["tool_calls"] = message.tool_calls
        if converted["content"].strip() or converted.get("tool_calls"):
            out.append(converted)
    return out


class SessionMemory:
    """Scope resolution, recall and a per-session buffer of runs, shared by the hooks.

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient``.
        user_id / app_id / agent_id: the memhub scope; ``user_id`` falls back to ``Agent.user_id``.
        limit / groups / template: what is recalled and how it is rendered.
        add_every: add the buffered runs every N runs; ``0`` waits for ``flush``.
    """

    def __init__(
        self,
        client: Client,
        *,
        user_id: str | None,
        app_id: str | None,
        agent_id: str | None,
        limit: int,
        groups: Sequence[str],
        template: str | None,
        add_every: int,
    ) -> None:
        if add_every < 0:
            raise ValueError("add_every must be 0 (only on flush) or a positive number of runs")
        self.memhub = MemHub(client)
        self.user_id, self.app_id, self.agent_id = user_id, app_id, agent_id
        self.limit, self.groups, self.template = limit, tuple(groups), template
        self.add_every = add_every
        search_kwargs(
            user_id="-", app_id=None, agent_id=None, limit=limit, groups=self.groups
        )  # validate early
        # (user_id, session) -> buffered messages and how many runs they hold
        self._buffers: dict[tuple[str, str], tuple[list[dict[str, Any]], int]] = {}
        _LIVE.add(self)

    def user_of(self, agent: Any) -> str:
        user = self.user_id or getattr(agent, "user_id", None)
        if not user:
            raise ValueError(
                "MemHub hooks need a user_id: pass user_id=... to the hooks or set "
                "Agent(user_id=...)"
            )
        return user

    @staticmethod
    def session_of(agent: Any) -> str:
        return getattr(agent, "session_id", None) or getattr(agent, "agent_id", None) or "default"

    async def recall(self, agent: Any, query: str) -> str:
        """The rendered memories for ``query`` in the agent's scope (``""`` when none)."""
        if not query.strip():
            return ""
        args = search_kwargs(
            user_id=self.user_of(agent),
            app_id=self.app_id,
            agent_id=self.agent_id,
            limit=self.limit,
            groups=self.groups,
        )
        return render(await self.memhub.search(query, **args), self.groups, self.template)

    async def record(self, agent: Any) -> WriteResult | None:
        """Buffer the run that just ended; add the buffer when ``add_every`` runs are in."""
        response = getattr(agent, "run_response", None)
        messages = run_messages(getattr(response, "messages", None) or [])
        if not messages:
            return None
        key = (self.user_of(agent), self.session_of(agent))
        buffered, runs = self._buffers.get(key, ([], 0))
        self._buffers[key] = (buffered + messages, runs + 1)
        if self.add_every and runs + 1 >= self.add_every:
            return await self._add(key)
        return None

    async def flush(self, agent: Any | None = None) -> WriteResult | None:
        """Add what is buffered (for one agent's session, or for all); returns the last write."""
        keys = (
            [(self.user_of(agent), self.session_of(agent))]
            if agent is not None
            else list(self._buffers)
        )
        result = None
        for key in keys:
            result = await self._add(key) or result
        return result

    async def _add(self, key: tuple[str, str]) -> WriteResult | None:
        messages, runs = self._buffers.pop(key, ([], 0))
        if not any(m["content"].strip() for m in messages):
            return None
        user_id, session_id = key
        try:
            return await self.memhub.add(
                messages,
                user_id=user_id,
                app_id=self.app_id,
                agent_id=self.agent_id,
                session_id=session_id,
            )
        except BaseException:
            later, later_runs = self._buffers.get(key, ([], 0))
            self._buffers[key] = (messages + later, runs + later_runs)  # kept for the next flush
            raise
