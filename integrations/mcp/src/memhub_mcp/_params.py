"""Typed tool parameters: the JSON schema (and its descriptions) a model sees.

Scope parameters are flat, not a nested object: some MCP clients still fail on
``$ref``/``$defs`` in input schemas, and a flat ``repository="*"`` is what a model
writes most reliably.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from memhub.models import CorrectAction, GovernAction

AtomId = Annotated[
    str, Field(description="The memory's id (26-character ULID) as returned by recall or memorize.")
]
Reason = Annotated[
    str, Field(description="Why, in one sentence. Required: the audit trail (history) shows it.")
]
Content = Annotated[
    str, Field(description="One self-contained fact, decision or constraint, in natural language.")
]
Query = Annotated[
    str,
    Field(
        description="A short noun phrase naming the topic, "
        "e.g. '数据库选型' or 'deployment target'."
    ),
]
Limit = Annotated[int, Field(ge=1, le=200, description="At most this many results.")]
AsOf = Annotated[
    str | None,
    Field(
        description="Read as of this ISO 8601 date or date-time, e.g. '2026-07-01': the "
        "memories that held then, as they were then. Omit for now."
    ),
]

# -- scope (HMG tools) --------------------------------------------------------------

UserId = Annotated[
    str | None,
    Field(
        description="Only memories of this end user. "
        "Omit for project memories that belong to no user."
    ),
]
AppId = Annotated[
    str | None,
    Field(
        description="Application namespace; default: the server's default_app_id. On reads '*' "
        "means every app."
    ),
]
AgentId = Annotated[
    str | None,
    Field(description="An agent instance. Stored on writes; on reads, only that agent's."),
]
SessionId = Annotated[
    str | None, Field(description="A session id. Stored on writes; on reads, only that session's.")
]
Repository = Annotated[
    str | None,
    Field(
        description="Git repository as owner/name; default: the checkout the server runs in. "
        "On reads '*' searches every repository; on writes '*' stores the memory unbound, "
        "visible from every repository."
    ),
]
Branch = Annotated[
    str | None,
    Field(description="Git branch; default: the server's checkout. '*' widens like repository."),
]

# -- action enums -----------------------------------------------------------------

CorrectActionParam = Annotated[
    CorrectAction,
    Field(
        description="replace: content changed (needs new_content) · negate: no longer true, "
        "nothing replaces it · confirm_actual: possible -> actual · confirm_necessary: -> "
        "necessary (hard constraint) · demote: back to possible."
    ),
]
GovernActionParam = Annotated[
    GovernAction,
    Field(
        description="quarantine: hide, reversible (release undoes it) · release: undo quarantine · "
        "seal: hide content forever · tombstone: delete, only id and times remain · "
        "derive_lesson: keep lesson_content as a new memory, then seal the original."
    ),
]
Epistemic = Annotated[
    Literal["possible", "actual", "necessary"] | None,
    Field(
        description="Certainty: possible (heard, being evaluated), actual (confirmed), necessary "
        "(hard constraint). Default: inferred from the wording."
    ),
]
Polarity = Annotated[
    Literal["positive", "negative"] | None,
    Field(
        description="Whether it states something is (positive) or is not (negative). "
        "Default: inferred."
    ),
]
Source = Annotated[
    Literal["agent", "user"],
    Field(description="user if the user stated it themselves, agent if you concluded it."),
]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(
        description="Optional key/value tags stored with the memory (search can filter on them)."
    ),
]

# -- the MemHub face (add / search) ------------------------------------------------

RequiredUserId = Annotated[
    str, Field(description="The end user whose memory this is. Reads and writes must match.")
]
AppIds = Annotated[
    list[str] | None,
    Field(
        description="Search these apps; default: [the server's default_app_id]. ['*'] means every "
        "app."
    ),
]
Messages = Annotated[
    list[dict[str, Any]] | None,
    Field(
        description="The conversation, OpenAI style: [{'role': 'user'|'assistant'|'system'|'tool', "
        "'content': '...'}, ...]; assistant messages may carry 'tool_calls', tool messages "
        "'tool_call_id'. Give either messages or content."
    ),
]
