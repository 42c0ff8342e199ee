"""``MemHubMiddleware``: long-term memory for ``langchain.agents.create_agent``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ModelCallResult, OmitFromSchema
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.runtime import Runtime

from memhub.bridge import CHAT_GROUPS, Client, MemHub, has_text, render, search_kwargs
from memhub_langchain._messages import append_to_system, latest_user_text, to_memhub_messages

_SCOPE_KEYS = ("user_id", "app_id", "agent_id", "session_id")
_RECALLS_KEPT = 256


class MemHubState(AgentState):
    """Agent state plus a private marker: the id of the first message of the current run's input."""

    memhub_run_start: NotRequired[Annotated[str | None, OmitFromSchema(input=True, output=True)]]


@dataclass(frozen=True)
class _Scope:
    user_id: str
    app_id: str | None
    agent_id: str | None
    session_id: str | None


def _context_value(context: Any, key: str) -> Any:
    if context is None:
        return None
    if isinstance(context, Mapping):
        return context.get(key)
    return getattr(context, key, None)


class MemHubMiddleware(AgentMiddleware[MemHubState, Any]):
    """Recall memhub memories into every model call, and add each run to memhub.

    Before the first model call of a user turn the user's message is searched, and
    the formatted memories are appended to the system message of every model call
    of that turn (the calls after tool calls reuse the search) through ``request.override``:
    they reach the model but never enter the agent state, so a checkpointer does
    not persist them into the thread. When the agent finishes (``after_agent``),
    the run's user and assistant messages are added with ``client.add(messages=...)``
    (system and tool messages dropped). The run starts at its input's trailing human
    messages, marked in ``before_agent``: a checkpointed thread, or history the caller
    sends again with each request, is never added twice.

    The scope comes from the runtime context (``context_schema`` with ``user_id``
    and optionally ``app_id``, ``agent_id``, ``session_id``; a dict works too) and
    falls back to the constructor's values; ``session_id`` falls back to the
    thread id.

    Example:
        >>> from dataclasses import dataclass
        >>> from langchain.agents import create_agent
        >>> @dataclass
        ... class Context:
        ...     user_id: str
        >>> agent = create_agent(model, middleware=[MemHubMiddleware(client)],
        context_schema=Context)
        >>> agent.invoke({"messages": [{"role": "user", "content": "hi"}]},
        context=Context(user_id="alice"))

    Args:
        client: a ``MemoryClient`` (for ``ainvoke``) or ``SyncMemoryClient``; either works on
            both paths.
        user_id / app_id / agent_id: defaults when the runtime context gives none.
        limit: memories recalled per model call.
        groups: which groups reach the prompt: ``profile``, ``proactive``, ``normal``
            (default), and ``procedures`` / ``derived`` when wanted.
        add: add the run's messages to memhub when the agent finishes.
        template: ``str.format`` template around the memories (``{memories}``).
    """

    state_schema = MemHubState

    def __init__(
        self,
        client: Client,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 10,
        groups: Sequence[str] = CHAT_GROUPS,
        add: bool = True,
        template: str | None = None,
    ) -> None:
        self.memhub = MemHub(client)
        self.defaults = {"user_id": user_id, "app_id": app_id, "agent_id": agent_id}
        self.limit = limit
        self.groups = tuple(groups)
        self.add = add
        self.template = template
        # (scope, the turn's user message) -> its rendered memories: one search per turn
        self._recalled: OrderedDict[tuple, str] = OrderedDict()
        # A bad group name fails here, not at the first model call.
        search_kwargs(user_id="-", app_id=None, agent_id=None, limit=limit, groups=self.groups)

    # -- scope ------------------------------------------------------------------------

    def _scope(self, runtime: Runtime[Any] | None) -> _Scope:
        context = getattr(runtime, "context", None)
        values: dict[str, Any] = {
            key: _context_value(context, key) or self.defaults.get(key) for key in _SCOPE_KEYS
        }
        if not values["user_id"]:
            raise ValueError(
                "MemHubMiddleware needs a user_id: pass it in the runtime context "
                "(context_schema with a user_id field) or to the constructor"
            )
        info = getattr(runtime, "execution_info", None)
        values["session_id"] = values["session_id"] or getattr(info, "thread_id", None)
        return _Scope(**values)

    def _search_args(self, scope: _Scope) -> dict[str, Any]:
        return search_kwargs(
            user_id=scope.user_id,
            app_id=scope.app_id,
            agent_id=scope.agent_id,
            limit=self.limit,
            groups=self.groups,
        )

    def _with_memories(self, request: ModelRequest[Any], block: str) -> ModelRequest[Any]:
        if not block:
            return request
        return request.override(system_message=append_to_system(request.system_message, block))

    # -- recall -----------------------------------------------------------------------

    @staticmethod
    def _turn_key(scope: _Scope, messages: Sequence[BaseMessage]) -> tuple:
        """The user turn a model call belongs to: its scope and its last human message."""
        human = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        return (scope, human.id if human is not None and human.id else latest_user_text(messages))

    def _remember(self, key: tuple, block: str) -> str:
        self._recalled[key] = block
        while len(self._recalled) > _RECALLS_KEPT:
            self._recalled.popitem(last=False)
        return block

    def _forget_turn(self, state: MemHubState, runtime: Runtime[Any]) -> None:
        if self._recalled:
            self._recalled.pop(
                self._turn_key(self._scope(runtime), state.get("messages") or []), None
            )

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelCallResult[Any]:
        query = latest_user_text(request.messages)
        if not query:
            return handler(request)
        scope = self._scope(request.runtime)
        key = self._turn_key(scope, request.messages)
        block = self._recalled.get(key)
        if block is None:
            result = self.memhub.search_sync(query, **self._search_args(scope))
            block = self._remember(key, render(result, self.groups, self.template))
        return handler(self._with_memories(request, block))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelCallResult[Any]:
        query = latest_user_text(request.messages)
        if not query:
            return await handler(request)
        scope = self._scope(request.runtime)
        key = self._turn_key(scope, request.messages)
        block = self._recalled.get(key)
        if block is None:
            result = await self.memhub.search(query, **self._search_args(scope))
            block = self._remember(key, render(result, self.groups, self.template))
        return await handler(self._with_memories(request, block))

    # -- persist ----------------------------------------------------------------------

    @staticmethod
    def _run_start(state: MemHubState) -> dict[str, Any]:
        """Mark where this run's input begins: the trailing human messages of the state.

        Earlier messages (a checkpointed thread, or history the caller resent) were
        added by the runs that said them.
        """
        messages = state.get("messages") or []
        i = len(messages)
        while i > 0 and isinstance(messages[i - 1], HumanMessage):
            i -= 1
        return {"memhub_run_start": messages[i].id if i < len(messages) else None}

    @staticmethod
    def _run_messages(state: MemHubState) -> list[dict[str, Any]]:
        """This run's user and assistant messages, converted (system and tool messages dropped)."""
        messages = state.get("messages") or []
        marker = state.get("memhub_run_start")
        start = next((i for i, m in enumerate(messages) if marker and m.id == marker), None)
        if start is None:  # the marker was rewritten away (e.g. summarised): keep the last turn
            start = next(
                (
                    i
                    for i in range(len(messages) - 1, -1, -1)
                    if isinstance(messages[i], HumanMessage)
                ),
                0,
            )
        return [
            m for m in to_memhub_messages(messages[start:]) if has_text(m) or m.get("tool_calls")
        ]

    def _add_args(self, scope: _Scope) -> dict[str, Any]:
        return {
            "user_id": scope.user_id,
            "app_id": scope.app_id,
            "agent_id": scope.agent_id,
            "session_id": scope.session_id,
        }

    def before_agent(self, state: MemHubState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self._run_start(state) if self.add else None

    async def abefore_agent(
        self, state: MemHubState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        return self._run_start(state) if self.add else None

    def after_agent(self, state: MemHubState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        self._forget_turn(state, runtime)
        messages = self._run_messages(state) if self.add else []
        if any(has_text(m) for m in messages):
            self.memhub.add_sync(messages, **self._add_args(self._scope(runtime)))
        return None

    async def aafter_agent(
        self, state: MemHubState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        self._forget_turn(state, runtime)
        messages = self._run_messages(state) if self.add else []
        if any(has_text(m) for m in messages):
            await self.memhub.add(messages, **self._add_args(self._scope(runtime)))
        return None
