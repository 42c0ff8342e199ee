"""Build the memhub MCP server around one ``MemoryClient``.

Example:
    >>> from memhub import MemoryClient
    >>> from memhub_mcp import build_server
    >>> server = build_server(lambda: MemoryClient(storage_dir="./.memhub_data"))
    >>> server.run("stdio")  # doctest: +SKIP

The client is made by the factory when the server starts (its lifespan), opened
before the first request and closed at shutdown: one client, so one open store,
per server process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from memhub import MemHubError, MemoryClient, UsageError
from memhub.models import Atom, SessionContext
from memhub.scope import SCOPE_KEYS, Scope
from memhub_mcp import tools

SERVER_NAME = "memhub"
CONTEXT_URI = "memhub://session-context"
CONTEXT_PROMPT = "session_context"

INSTRUCTIONS = """\
memhub is long-term memory that outlives this conversation.
At the start of a session, read the session_context prompt (or the resource
memhub://session-context): the last session's handoff and this project's hard constraints.
Project memory (scope: the git repository and branch the server runs in):
memorize a decision or fact when it is made; recall with a noun phrase before answering
about earlier decisions; correct a stored memory instead of memorizing a new version
(replace when the content changed, negate when it is void); govern only for content that
must not exist (secrets); handoff once at the end of the session.
A user's conversational memory (user_id required): add the conversation at its end,
search with the user's message before answering, search_conversation for exact wording.
Errors come back as tool errors starting with a code: not_found, invalid_input,
invalid_transition, conflict, provider_error."""

ClientFactory = Callable[[], MemoryClient]


def package_version() -> str:
    try:
        return version("memhub-mcp")
    except PackageNotFoundError:
        return "unknown"


LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class Runtime:
    """The server's one ``MemoryClient``: made and opened by the lifespan, closed after it."""

    def __init__(self, factory: ClientFactory) -> None:
        self._factory = factory
        self._client: MemoryClient | None = None

    def client(self) -> MemoryClient:
        if self._client is None:
            raise UsageError("the memhub MCP server is not running: its lifespan has not started")
        return self._client

    @asynccontextmanager
    async def lifespan(self, _server: MCPServer[Any]) -> AsyncIterator[Runtime]:
        client = self._factory()
        try:
            await client.open()
            self._client = client
            yield self
        finally:
            self._client = None
            await client.aclose()


def build_server(
    client_factory: ClientFactory, *, name: str = SERVER_NAME, log_level: LogLevel = "INFO"
) -> MCPServer[Runtime]:
    """The MCP server: ten tools, the ``session_context`` prompt and ``memhub://session-context``.

    Args:
        client_factory: makes the ``MemoryClient`` when the server starts (it may return
            an already open client; it is closed when the server stops).
        name: the server name announced to clients.
        log_level: the MCP SDK's log level (its log goes to stderr).
    """
    runtime = Runtime(client_factory)
    server: MCPServer[Runtime] = MCPServer(
        name,
        version=package_version(),
        instructions=INSTRUCTIONS,
        lifespan=runtime.lifespan,
        log_level=log_level,
    )
    tools.register(server, runtime.client)

    @server.prompt(
        name=CONTEXT_PROMPT,
        title="memhub session context",
        description="Start a session with what memhub knows: the latest handoff first, then the "
        "project's hard constraints. Arguments narrow or widen the scope (default: the "
        "server's git repository and branch).",
    )
    async def session_context_prompt(
        user_id: Annotated[str | None, Field(description="Only this user's memories.")] = None,
        app_id: Annotated[str | None, Field(description="Application namespace.")] = None,
        repository: Annotated[
            str | None, Field(description="owner/name, or * for every repository.")
        ] = None,
        branch: Annotated[
            str | None, Field(description="Git branch, or * for every branch.")
        ] = None,
    ) -> str:
        return await context_text(
            runtime.client(), user_id=user_id, app_id=app_id, repository=repository, branch=branch
        )

    @server.resource(
        CONTEXT_URI,
        name="session-context",
        title="memhub session context",
        mime_type="text/markdown",
        description=(
            "The latest handoff, then the hard constraints, for the server's default scope."
        ),
    )
    async def session_context_resource() -> str:
        return await context_text(runtime.client())

    return server


async def context_text(client: MemoryClient, **scope: str | None) -> str:
    """The session-start context as text; a memhub error is reported in the text, not raised.

    A prompt or resource cannot return a tool-style error, and the context is only advice,
    so a bad scope argument yields an explanation the model can read.
    """
    overrides = {k: v for k, v in scope.items() if v is not None}
    try:
        context = await client.session_context(**overrides)
    except MemHubError as err:
        return f"# memhub session context\n\nUnavailable: {err.code}: {err}"
    return render_context(context, client.scope.with_(**overrides))


def render_context(context: SessionContext, scope: Scope) -> str:
    """Readable session-start context: the latest handoff first, then the constraints."""
    values = [(k, getattr(scope, k)) for k in SCOPE_KEYS if k != "tenant"]
    shown = ", ".join(f"{k}={v}" for k, v in values if v is not None) or "(none)"
    lines = ["# memhub session context", "", f"Scope: {shown}", ""]
    lines.append("## Latest handoff")
    if context.handoff is None:
        lines.append("No handoff yet for this scope.")
    else:
        lines.append(f"{_when(context.handoff)} (atom {context.handoff.atom_id})")
        lines.append("")
        lines.append(context.handoff.content)
    if context.earlier_handoffs:
        lines += ["", "## Earlier handoffs"]
        lines += [
            f"- {_when(a)}: {_first_line(a.content)} (atom {a.atom_id})"
            for a in context.earlier_handoffs
        ]
    lines += ["", "## Constraints (necessary: must hold)"]
    if context.constraints:
        lines += [f"- {a.content} (atom {a.atom_id})" for a in context.constraints]
    else:
        lines.append("None recorded.")
    lines += [
        "",
        "Recall other memories with a noun phrase (recall); leave a handoff when the session ends.",
    ]
    return "\n".join(lines)


def _when(atom: Atom) -> str:
    return atom.created_at[:16].replace("T", " ") + " UTC"


def _first_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
