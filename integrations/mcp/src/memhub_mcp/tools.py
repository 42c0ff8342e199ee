"""The ten memhub tools. Each docstring is the description a model reads when choosing one.

``forget_user`` is deliberately not a tool: an agent must not be able to erase its user's memory.

Results are the SDK's models as JSON (``model_dump(mode="json", by_alias=True)``), both
as ``structuredContent`` (validated against the advertised ``outputSchema``) and as a
text block for clients that only read text. A ``MemHubError`` becomes a tool result
with ``isError`` set and the error code first in the text, so the model can react.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from memhub import InvalidInputError, MemHubError, MemoryClient
from memhub.messages import too_many_messages
from memhub.models import (
    ConversationResult,
    CorrectResult,
    GovernResult,
    HandoffResult,
    HistoryResult,
    MemorizeResult,
    RecallResult,
    SearchResult,
    Stats,
    WriteResult,
)
from memhub_mcp._params import (
    AgentId,
    AppId,
    AppIds,
    AsOf,
    AtomId,
    Branch,
    Content,
    CorrectActionParam,
    Epistemic,
    GovernActionParam,
    Limit,
    Messages,
    Metadata,
    Polarity,
    Query,
    Reason,
    Repository,
    RequiredUserId,
    SessionId,
    Source,
    UserId,
)

ERROR_META_KEY = "memhub/error"

# What a model can do next, per error code (the message itself says what went wrong).
_HINTS = {
    "not_found": "Check the id (recall returns ids; repository='*' recalls every project's). "
    "An id reaches its memory from any repository or branch, but not another user's or app's.",
    "invalid_transition": "The action is not allowed from the memory's current state; call "
    "history to see it.",
    "conflict": "Another writer changed this memory at the same time; retry the call.",
    "provider_error": "The LLM or embedding provider failed; retry later.",
}


def to_result(result: BaseModel) -> CallToolResult:
    """A successful call: the model's JSON as structured content and as text."""
    data = result.model_dump(mode="json", by_alias=True)
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def to_error(err: MemHubError) -> CallToolResult:
    """A failed call the model should read: ``<code>: <message>``, plus a hint when there is one."""
    text = f"{err.code}: {err}"
    if hint := _HINTS.get(err.code):
        text += f"\n{hint}"
    meta = {ERROR_META_KEY: {"code": err.code, "message": str(err)}}
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True, _meta=meta)


# The scope of the HMG tools, flat (see memhub_mcp._params), after each tool's own parameters.
_SCOPE = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=kind)
    for name, kind in (
        ("user_id", UserId),
        ("app_id", AppId),
        ("agent_id", AgentId),
        ("session_id", SessionId),
        ("repository", Repository),
        ("branch", Branch),
    )
]


def _within_limits(client: MemoryClient, arguments: dict[str, Any]) -> None:
    """An add of more turns than ``max_messages_per_add`` is refused, as by the REST service:
    one tool call must not hold the embedder for minutes."""
    limit = client.settings.max_messages_per_add
    if problem := too_many_messages(arguments.get("messages"), limit):
        raise InvalidInputError(problem)


def _forwarded(
    *,
    scoped: bool = False,
    check: Callable[[MemoryClient, dict[str, Any]], None] | None = None,
) -> Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[CallToolResult]]]:
    """The tool runs the ``MemoryClient`` operation of its name with the arguments given.

    A tool declares only what a model reads: each parameter's type and description, and
    its own docstring; ``scoped`` adds the HMG scope parameters; ``check`` may refuse the
    arguments first. An argument left out (``None``) takes the operation's default;
    ``tests/integrations/test_api_definition.py`` checks that every tool takes every
    parameter of its operation, with the same defaults.
    """

    def forward(tool: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[CallToolResult]]:
        name = tool.__name__

        @functools.wraps(tool)
        async def run(self: MemoryTools, **arguments: Any) -> CallToolResult:
            given = {k: v for k, v in arguments.items() if v is not None}

            async def call(client: MemoryClient) -> BaseModel:
                if check is not None:
                    check(client, given)
                return await getattr(client, name)(**given)

            return await self._run(call)

        if scoped:  # the MCP SDK reads a tool's parameters from inspect.signature
            signature = inspect.signature(tool, eval_str=True)
            params = [*signature.parameters.values(), *_SCOPE]
            # a function's __signature__ is inspect's hook, not a declared attribute
            run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        return run

    return forward


class MemoryTools:
    """The tools, bound to the server's one ``MemoryClient`` (``client()`` returns it)."""

    def __init__(self, client: Callable[[], MemoryClient]) -> None:
        self._client = client

    async def _run(self, call: Callable[[MemoryClient], Awaitable[BaseModel]]) -> CallToolResult:
        try:
            return to_result(await call(self._client()))
        except MemHubError as err:
            return to_error(err)

    # -- HMG: project memory (scope: this git repository and branch) -----------------

    @_forwarded(scoped=True)
    async def memorize(
        self,
        content: Content,
        epistemic: Epistemic = None,
        polarity: Polarity = None,
        source: Source = "agent",
        metadata: Metadata = None,
    ) -> Annotated[CallToolResult, MemorizeResult]:
        """Store ONE durable fact, decision or constraint so later sessions can recall it,
        e.g. "项目用 PostgreSQL 16 做主数据库，不用 MongoDB". Call it when something is decided or
        learned that will matter later; one fact per call, as a self-contained sentence.
        Certainty and polarity are inferred from the wording. Secrets (connection strings,
        password=..., tokens, private keys) are redacted before storing; a duplicate in the same
        scope is a no_op that returns the existing atom_id.
        Do NOT use it to update or retract a stored memory: call correct on that atom (replace or
        negate), so only one version stays current. End-of-session summaries go to handoff; a
        user's chat conversation goes to add."""

    @_forwarded(scoped=True)
    async def recall(
        self,
        query: Query,
        limit: Limit = 10,
        as_of: AsOf = None,
    ) -> Annotated[CallToolResult, RecallResult]:
        """Find stored memories (facts, decisions, constraints, lessons) of this project, by
        keyword + semantic search. Call it before answering a question about earlier decisions
        and before deciding something that may already have been decided.
        Use a short noun phrase as the query: "数据库选型" works far better than a question like
        "我们之前决定用什么数据库来着". Only current memories come back (replaced, negated and
        governed ones never do), best first, each with the atom_id that correct, govern and
        history take. The scope is this server's git repository and branch (plus memories bound
        to none); pass repository="*" to search every project."""

    @_forwarded(scoped=True)
    async def correct(
        self,
        target_atom: AtomId,
        action: CorrectActionParam,
        reason: Reason,
        new_content: Annotated[
            str | None, Field(description="The new version's full text (replace only).")
        ] = None,
    ) -> Annotated[CallToolResult, CorrectResult]:
        """Change what is BELIEVED about one memory. The content must change -> "replace" with
        new_content: a new version supersedes the old one and recall returns only the new one
        ("用 PostgreSQL 16" -> "用 PostgreSQL 17"; also when a decision changed: "考虑用 K8s" ->
        "决定用 ECS 部署"). No longer true and nothing replaces it -> "negate" (it is simply never
        recalled again; do not write the opposite as new content). Same content, different
        certainty -> "confirm_actual" (possible -> actual, e.g. verified in the config),
        "confirm_necessary" (-> necessary: a hard rule), "demote" (straight back to possible,
        even from necessary; necessary -> actual takes demote then confirm_actual).
        There is no undo: to repair a wrong negate or replace, "replace" that atom again with
        the right content. Prefer this over memorize for anything already stored. correct never
        destroys content; if content must disappear (e.g. a leaked password), use govern."""

    @_forwarded(scoped=True)
    async def govern(
        self,
        target_atom: AtomId,
        action: GovernActionParam,
        reason: Reason,
        lesson_content: Annotated[
            str | None,
            Field(description="The reusable lesson, without the secret (derive_lesson only)."),
        ] = None,
    ) -> Annotated[CallToolResult, GovernResult]:
        """Change whether a memory may EXIST (correct changes what is believed; govern changes
        existence). "quarantine": hide it from every read, content kept, reversible with
        "release", for a memory that may be wrong or harmful until a human checks. "seal": the
        content is gone for good (history shows "[governed payload hidden: sealed]").
        "tombstone": deleted, only the id and times remain. "derive_lesson": for content that
        must go but teaches something, e.g. a stored plaintext password: lesson_content ("不要在
        记忆中存储数据库密码，使用环境变量") becomes a new recallable memory and the original is \
sealed.
        seal, tombstone and derive_lesson also reach the memory's lineage, listed in "cascaded": the
        conversation turns it was extracted from and every memory extracted or derived from it or
        from them (a raw turn from search_conversation can be governed too). The lesson stays.
        Redaction already strips connection strings, password=..., tokens and keys, but not a
        secret in prose ("数据库密码是 pg_admin_123"): govern those. Merely outdated memories
        are corrected (negate/replace), not governed. seal, tombstone and derive_lesson cannot
        be undone: do them when the user asks or the content must not exist."""

    @_forwarded(scoped=True)
    async def handoff(
        self,
        summary: Annotated[
            str, Field(description="What was done, why, open risks and the next steps.")
        ],
    ) -> Annotated[CallToolResult, HandoffResult]:
        """Leave a summary for the NEXT session of this project. Call it once at the end of a
        session (or before the context is lost): what was done and why, open risks, next steps,
        e.g. "修复了 login.py 的空指针问题，根因是 session 过期时 get_session() 返回 None … 风险：
        并发刷新可能有竞态。下一步：给 session 模块补集成测试。" The next session sees the latest
        handoff first in the session_context prompt (resource memhub://session-context).
        Individual facts belong in memorize; handoff is the whole session's state."""

    @_forwarded(scoped=True)
    async def history(
        self,
        atom_id: AtomId,
    ) -> Annotated[CallToolResult, HistoryResult]:
        """The audit trail of one memory: its current state, the version chain (supersedes,
        superseded_by), related lessons, and every exposure, certainty and status change with
        its reason, time and actor. Governed content is never shown. Use it when the user asks
        how or why a memory changed; normal work does not need it (use recall to find memories)."""

    @_forwarded(scoped=True)
    async def stats(
        self,
    ) -> Annotated[CallToolResult, Stats]:
        """Counts of what the store holds: atoms, edges, per-index counts, snapshot_version.
        For diagnostics or when the user asks how much is stored; it returns no memory text.
        Without arguments it counts everything; given user_id, repository, ... it counts only
        the memories stored with exactly those."""

    # -- MemHub: a user's conversational memory (user_id required) -------------------

    @_forwarded(check=_within_limits)
    async def add(
        self,
        user_id: RequiredUserId,
        messages: Messages = None,
        content: Annotated[
            str | None, Field(description="A single statement, instead of messages.")
        ] = None,
        app_id: AppId = None,
        agent_id: AgentId = None,
        session_id: SessionId = None,
        workspace_id: Annotated[
            str | None, Field(description="Project folder; bounds coding procedures.")
        ] = None,
        branch: Annotated[
            str | None, Field(description="Git branch; bounds coding procedures.")
        ] = None,
        metadata: Metadata = None,
        occurred_at: Annotated[
            str | None, Field(description="When it happened (ISO 8601); default: now.")
        ] = None,
    ) -> Annotated[CallToolResult, WriteResult]:
        """Write a conversation (messages, preferred) or one statement (content) into a USER's
        long-term memory. memhub keeps the raw turns, extracts facts and profile items (likes,
        plans, circumstances) and reconciles each with what it already knows about that user:
        result.decisions says ADD, NOOP, OVERRIDE (new version), SUPPLEMENT, ... per candidate;
        result.memory_ids are the memories it wrote (result.memory_id is the raw turn).
        Coding sessions with tool calls also yield reusable procedures (task -> solution).
        Call it once at the end of a conversation (or every few turns) with the whole exchange,
        not after every message; at most 12 user/assistant messages per call by default (the
        error names the server's limit): send a longer one as several calls with one session_id.
        System messages are dropped and tool outputs never stored.
        Decisions about the current code project fit memorize better."""

    @_forwarded()
    async def search(
        self,
        query: Annotated[str, Field(description="The user's message or the topic to look up.")],
        user_id: RequiredUserId,
        app_ids: AppIds = None,
        agent_id: AgentId = None,
        session_id: SessionId = None,
        limit: Limit = 10,
        procedure_limit: Annotated[
            int, Field(ge=0, le=50, description="Also return up to N coding procedures.")
        ] = 0,
        procedure_min_score: Annotated[
            float, Field(ge=0, le=1, description="Drop procedures below it.")
        ] = 0.0,
        derived_context_limit: Annotated[
            int | None, Field(ge=0, le=50, description="Also return up to N derived (L3) insights.")
        ] = None,
        filters: Annotated[
            dict | None, Field(description="Match metadata, e.g. {'topic': 'db'}.")
        ] = None,
        as_of: AsOf = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Search a USER's memories (written with add) before answering them: returns current
        memories grouped as profile (stable traits and preferences), proactive and normal, each
        with its evolution_chain (ids of the versions it replaced). Every session of the user is
        searched; session_id narrows to one. Pass the user's message or
        a topic such as "用户的编程语言偏好". procedure_limit > 0 adds engineering procedures
        from coding sessions, e.g. for "SQLite database is locked 怎么解决". Raw turns are not
        returned: use search_conversation to check what was literally said. Decisions stored
        with memorize are found with recall."""

    @_forwarded()
    async def search_conversation(
        self,
        query: Annotated[str, Field(description="Words or a topic from the conversation.")],
        user_id: RequiredUserId,
        app_ids: AppIds = None,
        agent_id: AgentId = None,
        session_id: SessionId = None,
        limit: Limit = 10,
        as_of: AsOf = None,
    ) -> Annotated[CallToolResult, ConversationResult]:
        """Search the raw conversation turns a user had (as written with add), to check what was
        literally said and when: exact wording, dates, who said it. Governed content never
        appears. For what memhub knows about the user, use search instead."""


_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_ANNOTATIONS = {
    "memorize": (
        "Remember a fact",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    ),
    "recall": ("Recall project memories", _READ),
    "correct": ("Correct a memory", _WRITE),
    "govern": (
        "Hide, seal or delete a memory",
        ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    ),
    "handoff": ("Hand off to the next session", _WRITE),
    "history": ("Audit trail of a memory", _READ),
    "stats": ("Store statistics", _READ),
    "add": ("Add a conversation to a user's memory", _WRITE),
    "search": ("Search a user's memories", _READ),
    "search_conversation": ("Search a user's raw conversation", _READ),
}
TOOL_NAMES = tuple(_ANNOTATIONS)


def register(server: MCPServer, client: Callable[[], MemoryClient]) -> MemoryTools:
    """Add the ten tools to ``server``; ``client()`` must return the open ``MemoryClient``."""
    tools = MemoryTools(client)
    for name, (title, hints) in _ANNOTATIONS.items():
        fn = getattr(tools, name)
        server.add_tool(
            fn, name=name, title=title, description=inspect.cleandoc(fn.__doc__), annotations=hints
        )
    return tools
