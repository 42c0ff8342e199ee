"""Prebuilt graph nodes: recall memories before the model, remember the session after it.

Example:
    >>> class State(MessagesState):
    ...     memories: str
    >>> builder = StateGraph(State)
    >>> builder.add_node("recall", memory_search_node(client))
    >>> builder.add_node("model", call_model)          # puts state["memories"] in its prompt
    >>> builder.add_node("remember", memory_add_node(client))
    >>> builder.add_edge(START, "recall"); builder.add_edge("recall", "model")
    >>> builder.add_edge("model", "remember"); builder.add_edge("remember", END)
    >>> graph.invoke({"messages": [("user", "hi")]}, {"configurable": {"user_id": "alice",
    "thread_id": "t1"}})

Both nodes take a ``MemoryClient`` or a ``SyncMemoryClient`` and work under
``invoke`` and ``ainvoke``. The user id (and the session and app ids) are read
from the run's context first (LangGraph 1.x: ``graph.invoke(..., context=Ctx(user_id=...))``
with ``StateGraph(State, context_schema=Ctx)``), then from ``config["configurable"]``,
then from the state, under ``user_id_key``: memories are only ever searched and
written in that user's scope.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, convert_to_openai_messages
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph._internal._constants import CONFIG_KEY_RUNTIME

from memhub.bridge import CHAT_GROUPS, Client, MemHub, chat_turns, has_text, render, search_kwargs


def to_memhub_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """OpenAI-style dicts of the user and assistant turns, with their LangChain ids
    (see ``memhub.bridge.chat_turns``)."""
    return chat_turns(convert_to_openai_messages(list(messages)), [m.id for m in messages])


def latest_user_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text.strip()
    return ""


def _latest_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    starts = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    return list(messages[starts[-1] :]) if starts else list(messages)


def _context(config: RunnableConfig | None) -> Any:
    """The run's ``context=`` (LangGraph 1.x ``Runtime.context``), or ``None``."""
    runtime = ((config or {}).get("configurable") or {}).get(CONFIG_KEY_RUNTIME)
    return getattr(runtime, "context", None)


def _session_id(state: Any, config: RunnableConfig | None, key: str | None) -> str | None:
    """The context's ``session_id`` when it has one, else ``key`` (the thread id by default)."""
    value = _field(_context(config), "session_id")
    return str(value) if value is not None else lookup(state, config, key)


def _field(source: Any, key: str) -> Any:
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get(key)
    return getattr(source, key, None)  # a dataclass or pydantic context


def lookup(state: Any, config: RunnableConfig | None, key: str | None) -> str | None:
    """``key`` from the runtime context, then ``config["configurable"]``, then the state."""
    if key is None:
        return None
    configurable = (config or {}).get("configurable") or {}
    for source in (_context(config), configurable, state):
        value = _field(source, key)
        if value is not None:
            return str(value)
    return None


def _user_id(state: Any, config: RunnableConfig | None, key: str) -> str:
    user_id = lookup(state, config, key)
    if not user_id:
        raise ValueError(
            f"no user id: pass it in the run's context (`context={{{key!r}: ...}}`), as "
            f"config['configurable'][{key!r}] or in the state under {key!r}; "
            "memory is always read and written per user"
        )
    return user_id


def _messages(state: Any, key: str) -> list[BaseMessage]:
    messages = state.get(key) if isinstance(state, Mapping) else getattr(state, key, None)
    return list(messages or [])


def memory_search_node(
    client: Client,
    *,
    user_id_key: str = "user_id",
    messages_key: str = "messages",
    output_key: str = "memories",
    app_id: str | None = None,
    agent_id: str | None = None,
    app_id_key: str | None = "app_id",
    limit: int = 10,
    groups: Sequence[str] = CHAT_GROUPS,
    template: str | None = None,
) -> RunnableLambda:
    """A node that searches memory with the latest user message and writes the prompt block.

    The block (``""`` when nothing is found) goes to ``state[output_key]`` for the
    model node to put in its system prompt.

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient``.
        user_id_key: where the user id is, in ``config["configurable"]`` or the state.
        messages_key: the state key holding the conversation.
        output_key: the state key the block is written to (declare it in your state).
        app_id / agent_id: narrow the search to one app or agent.
        app_id_key: where a per-run app id is (context, configurable, state); it wins
            over ``app_id``.
        limit: at most this many memories.
        groups: memory groups to include (``profile``, ``proactive``, ``normal``,
            ``procedures``, ``derived``).
        template: ``str.format`` template with ``{memories}`` (default: a one-line preamble).
    """
    hub = MemHub(client)

    def prepare(state: Any, config: RunnableConfig | None) -> dict[str, Any] | None:
        query = latest_user_text(_messages(state, messages_key))
        if not query:
            return None
        user_id = _user_id(state, config, user_id_key)
        app = lookup(state, config, app_id_key) or app_id
        return search_kwargs(
            user_id=user_id, app_id=app, agent_id=agent_id, limit=limit, groups=groups
        ) | {"query": query}

    def search(state: Any, config: RunnableConfig) -> dict[str, str]:
        kwargs = prepare(state, config)
        if kwargs is None:
            return {output_key: ""}
        return {output_key: render(hub.search_sync(**kwargs), groups, template)}

    async def asearch(state: Any, config: RunnableConfig) -> dict[str, str]:
        kwargs = prepare(state, config)
        if kwargs is None:
            return {output_key: ""}
        return {output_key: render(await hub.search(**kwargs), groups, template)}

    return RunnableLambda(search, afunc=asearch, name="memory_search")


def memory_add_node(
    client: Client,
    *,
    user_id_key: str = "user_id",
    messages_key: str = "messages",
    session_id_key: str | None = "thread_id",
    app_id: str | None = None,
    agent_id: str | None = None,
    app_id_key: str | None = "app_id",
    window: Literal["turn", "all"] = "turn",
) -> RunnableLambda:
    """A node that adds the session's messages to memory (``client.add(messages=...)``).

    memhub keeps every user and assistant message as a raw turn (found by
    ``search_conversation``), extracts facts from them and reconciles them with
    what it already knows. System and tool messages are never stored.

    Args:
        client: a ``MemoryClient`` or ``SyncMemoryClient``.
        user_id_key: where the user id is, in ``config["configurable"]`` or the state.
        messages_key: the state key holding the conversation.
        session_id_key: where the session id is (default: the thread id); a
            ``session_id`` in the run's context wins.
        app_id / agent_id: the scope to write in (default: the client's app).
        app_id_key: where a per-run app id is (context, configurable, state); it wins
            over ``app_id``.
        window: ``"turn"`` (default) adds the messages from the latest user message
            on, so a thread that runs this node after every turn adds each message
            once; ``"all"`` sends the whole conversation, and memhub skips the messages
            it already holds (same id and text in the same session), so that is safe
            after every turn too.
    """
    hub = MemHub(client)

    def prepare(state: Any, config: RunnableConfig | None) -> dict[str, Any] | None:
        messages = _messages(state, messages_key)
        messages = _latest_turn(messages) if window == "turn" else messages
        converted = [m for m in to_memhub_messages(messages) if has_text(m)]
        if not converted:
            return None
        return {
            "messages": converted,
            "user_id": _user_id(state, config, user_id_key),
            "app_id": lookup(state, config, app_id_key) or app_id,
            "agent_id": agent_id,
            "session_id": _session_id(state, config, session_id_key),
        }

    def add(state: Any, config: RunnableConfig) -> dict[str, Any]:
        kwargs = prepare(state, config)
        if kwargs is not None:
            hub.add_sync(**kwargs)
        return {}

    async def aadd(state: Any, config: RunnableConfig) -> dict[str, Any]:
        kwargs = prepare(state, config)
        if kwargs is not None:
            await hub.add(**kwargs)
        return {}

    return RunnableLambda(add, afunc=aadd, name="memory_add")
