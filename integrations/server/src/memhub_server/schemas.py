"""Request bodies of the REST API: the SDK's keyword arguments, validated at the door.

Responses are the SDK's own models (``memhub.models``), so the OpenAPI document
describes exactly what the Python client returns. A request that fails here gets a
422 and changes nothing; what passes is checked again by the engine (400).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from memhub.engine.hmg import MAX_CONTENT
from memhub.messages import MAX_MESSAGE_CHARS, MAX_MESSAGES
from memhub.models import CorrectAction, Epistemic, GovernAction
from memhub.scope import MAX_ID

MAX_QUERY = 8_000
MAX_REASON = 2_000
_INT = 2**53  # JSON-safe integers: every client's number type holds them exactly

# The SDK's rule for ids (memhub.scope.check_id) as a schema: stripped, 1..MAX_ID, no control chars.
Id = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=MAX_ID, pattern=r"^[^\x00-\x1f\x7f]*$"
    ),
]
Text = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CONTENT)]
Query = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY)]
AsOf = Annotated[
    str | None,
    Field(
        max_length=40,
        description="read as of this ISO 8601 date or date-time: the memories that held then, "
        "as they were then (default: now)",
    ),
]
MetadataKey = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_\-]{1,64}$")]
Int = Annotated[int, Field(ge=-_INT, le=_INT)]
FilterValue = str | Int | bool


def _check_json(value: Any, depth: int = 0) -> None:
    """What the store can hold: valid UTF-8 text, JSON-safe integers, finite numbers, bounded
    nesting.
    """
    if depth > 16:
        raise ValueError("nested more than 16 levels deep")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -_INT <= value <= _INT:
            raise ValueError("integers must be within ±2**53")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("numbers must be finite")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_json(key, depth + 1)
            _check_json(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _check_json(item, depth + 1)


def _closed_keys(schema: dict[str, Any]) -> None:
    """Key patterns are the only keys allowed (pydantic leaves ``additionalProperties`` open)."""
    for value in schema.values():
        for node in value if isinstance(value, list) else [value]:
            if isinstance(node, dict):
                if "patternProperties" in node:
                    node["additionalProperties"] = False
                _closed_keys(node)


def _one_of_content_or_messages(schema: dict[str, Any]) -> None:
    _closed_keys(schema)
    schema["oneOf"] = [
        {"required": ["content"], "properties": {"content": {"type": "string"}}},
        {"required": ["messages"], "properties": {"messages": {"type": "array"}}},
    ]


class Body(BaseModel):
    """Base of every request body: unknown fields are an error, and all text must be storable."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_closed_keys)

    @model_validator(mode="after")
    def _storable(self) -> Body:
        _check_json(self.model_dump())
        return self

    def arguments(self) -> dict[str, Any]:
        """The SDK call's keyword arguments: the fields, named as its parameters, that were
        given. One left out takes the SDK's default, which is the field's own default
        (``tests/integrations/test_api_definition.py`` checks both)."""
        return self.model_dump(exclude_none=True)


class ScopeFields(Body):
    """Where the memory belongs. The tenant is never a field: the API key decides it."""

    user_id: Id | None = None
    app_id: Id | None = Field(None, description="default: the server's default_app_id")
    agent_id: Id | None = None
    session_id: Id | None = None
    workspace: Id | None = None
    repository: Id | None = Field(None, description="'*' widens a read across repositories")
    branch: Id | None = Field(None, description="'*' widens a read across branches")


class ScopeQuery(ScopeFields):
    """The same scope, as query parameters (``GET`` routes)."""


# -- HMG ------------------------------------------------------------------------------


class MemorizeRequest(ScopeFields):
    content: Text
    epistemic: Epistemic | None = Field(None, description="default: inferred from the text")
    polarity: Literal["positive", "negative"] | None = Field(None, description="default: inferred")
    source: Literal["user", "agent", "system", "import"] = "agent"
    metadata: dict[MetadataKey, Any] | None = Field(None, max_length=64)


class RecallRequest(ScopeFields):
    query: Query
    limit: int = Field(10, ge=1, le=200)
    as_of: AsOf = None


class CorrectRequest(ScopeFields):
    target_atom: Id
    action: CorrectAction
    reason: Annotated[str, StringConstraints(min_length=1, max_length=MAX_REASON)]
    new_content: Text | None = Field(None, description="the new version (replace only)")


class GovernRequest(ScopeFields):
    target_atom: Id
    action: GovernAction
    reason: Annotated[str, StringConstraints(min_length=1, max_length=MAX_REASON)]
    lesson_content: Text | None = Field(None, description="the lesson to keep (derive_lesson only)")


class HandoffRequest(ScopeFields):
    summary: Text


class PurgeResult(BaseModel):
    purged: bool = True


class DigestRequest(Body):
    mode: Literal["system1", "dual"] | None = Field(
        None, description="dual derives L3 patterns; default: the server's configured mode"
    )


# -- MemHub ---------------------------------------------------------------------------


class ContentPart(BaseModel):
    """One part of a message's content: its ``text`` is kept; other parts (images, ...) are not."""

    model_config = ConfigDict(extra="allow")  # OpenAI parts carry type-specific fields

    type: Annotated[str, StringConstraints(max_length=64)] | None = None
    text: Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)] | None = None


class ChatMessage(BaseModel):
    """One OpenAI-style message. System messages are dropped and tool output is never stored."""

    model_config = ConfigDict(extra="ignore")  # clients send many optional OpenAI fields

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: (
        Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]
        | list[ContentPart | Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]]
        | None
    ) = None
    tool_calls: list[dict[str, Any]] | None = Field(None, max_length=256)
    tool_call_id: Id | None = None
    name: Id | None = None
    id: Id | Int | None = None
    occurred_at: Annotated[str, StringConstraints(max_length=64)] | None = None
    timestamp: Annotated[str, StringConstraints(max_length=64)] | float | None = None
    created_at: Annotated[str, StringConstraints(max_length=64)] | float | None = None


class AddRequest(Body):
    """Exactly one of ``content`` (a statement) or ``messages`` (a conversation)."""

    model_config = ConfigDict(json_schema_extra=_one_of_content_or_messages)

    content: Text | None = None
    messages: list[ChatMessage] | None = Field(None, min_length=1, max_length=MAX_MESSAGES)
    user_id: Id
    app_id: Id | None = Field(None, description="default: the server's default_app_id")
    agent_id: Id | None = None
    session_id: Id | None = None
    workspace_id: Id | None = Field(None, description="version boundary of coding procedures")
    branch: Id | None = None
    metadata: dict[MetadataKey, Any] | None = Field(None, max_length=64)
    occurred_at: Annotated[str, StringConstraints(max_length=64)] | None = Field(
        None, description="when it happened (ISO 8601), if not now"
    )

    @field_validator("messages", mode="before")
    @classmethod
    def _not_too_many(cls, value: Any) -> Any:
        if isinstance(value, list) and len(value) > MAX_MESSAGES:
            raise ValueError(
                f"{len(value)} messages; one add takes at most {MAX_MESSAGES}, of which at most "
                "max_messages_per_add (see /health) user and assistant messages. Send the "
                "conversation as several adds with the same session_id"
            )
        return value

    @model_validator(mode="after")
    def _one_source(self) -> AddRequest:
        if (self.content is None) == (self.messages is None):
            raise ValueError("pass exactly one of content or messages")
        return self


class _ReadScope(Body):
    user_id: Id
    app_ids: list[Id] | None = Field(
        None, max_length=50, description="default: [the server's default_app_id]"
    )
    agent_id: Id | None = None
    session_id: Id | None = Field(None, description="only this session's; default: every session")


class SearchRequest(_ReadScope):
    query: Query
    limit: int = Field(10, ge=1, le=200)
    procedure_limit: int = Field(0, ge=0, le=50, description="0 = no procedures group")
    procedure_min_score: float = Field(0.0, ge=0.0, le=1.0)
    derived_context_limit: int | None = Field(
        None, ge=0, le=50, description="default: the server's setting"
    )
    filters: dict[MetadataKey, FilterValue | list[FilterValue]] | None = Field(
        None, max_length=32, description="metadata equality; a list matches any of its values"
    )
    as_of: AsOf = None


class SearchConversationRequest(_ReadScope):
    query: Query
    limit: int = Field(10, ge=1, le=200)
    as_of: AsOf = None


class ConversationRequest(_ReadScope):
    session_id: Id
    limit: int = Field(1000, ge=1, le=10_000)


class ListQuery(_ReadScope):
    include_history: bool = Field(False, description="add replaced and deleted versions")
    limit: int = Field(1000, ge=1, le=1000)
    as_of: AsOf = None


class UpdateRequest(Body):
    content: Text
    user_id: Id | None = None


class UpdateResult(BaseModel):
    id: str = Field(description="the new version's id")
    replaces: str = Field(description="the id that was updated (now superseded)")


class DeleteResult(BaseModel):
    id: str
    deleted: bool = True


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str
    max_messages_per_add: int = Field(
        description="most user and assistant messages one add takes (system and tool messages "
        "do not count); send a longer conversation as several adds with the same session_id"
    )
