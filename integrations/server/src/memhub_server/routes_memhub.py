"""The MemHub face: ``/v1/memories`` (add, search, search-conversation, get, history, list,
update, delete) and ``/v1/users`` (forget a user).

Each route is the SDK call of the same name, in the tenant of the request's key; its body
(or query) is the call's keyword arguments (``Body.arguments``). Like
the SDK's MemHub calls, these are user-centric: no git checkout binds or narrows them.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from starlette.exceptions import HTTPException

from memhub.messages import too_many_messages
from memhub.models import (
    ConversationResult,
    ForgetResult,
    HistoryResult,
    MemoryItem,
    SearchResult,
    WriteResult,
)
from memhub.scope import MAX_ID
from memhub_server.deps import Client, Service, Tenant
from memhub_server.schemas import (
    AddRequest,
    ConversationRequest,
    DeleteResult,
    Id,
    ListQuery,
    ScopeQuery,
    SearchConversationRequest,
    SearchRequest,
    UpdateRequest,
    UpdateResult,
)

router = APIRouter()
users_router = APIRouter()

MemoryId = Annotated[str, Path(min_length=1, max_length=MAX_ID, description="a memory id (ULID)")]
UserQuery = Annotated[Id | None, Query(description="only if it belongs to this user")]
UserId = Annotated[str, Path(min_length=1, max_length=MAX_ID, description="the end user's id")]
AsOfQuery = Annotated[
    str | None,
    Query(max_length=40, description="the version that held at this ISO 8601 date or date-time"),
]
AppQuery = Annotated[Id | None, Query(description="only this app's memories; default: every app")]


async def _within_message_limit(request: Request, svc: Service, _: Tenant) -> None:
    """413 for an add of more turns than ``max_messages_per_add``, before its body is validated.

    Validating an add of 2,000 messages (~1 MiB) takes 25 ms of the event loop that every
    request shares, 150 ms on a loaded machine; counting its turns in the JSON FastAPI has
    already parsed takes 2 ms. The key is checked first (``Tenant``).
    """
    try:
        data = await request.json()  # parsed once by FastAPI before any dependency runs
    except ValueError:
        return  # not JSON: the body's validation says so
    messages = data.get("messages") if isinstance(data, dict) else None
    if problem := too_many_messages(messages, svc.settings.max_messages_per_add):
        raise HTTPException(413, problem)


@router.post(
    "/",
    response_model=WriteResult,
    summary="add a statement or a conversation",
    dependencies=[Depends(_within_message_limit)],
)
async def add(body: AddRequest, svc: Service, tenant: Tenant, request: Request) -> WriteResult:
    """L0 raw records, extracted facts and profile items, reconciled with what is known.

    At most ``max_messages_per_add`` user and assistant messages (``/health`` says how
    many; 12 by default): a longer conversation gets 413 and nothing is stored. Send it
    as several adds with the same ``session_id``."""
    client = await svc.client(tenant)
    result = await client.add(**body.arguments())
    request.app.state.metrics.write_decisions(tenant, result)
    return result


@router.post("/search", response_model=SearchResult, summary="search current memories, grouped")
async def search(body: SearchRequest, svc: Service, tenant: Tenant) -> SearchResult:
    """``profile`` / ``proactive`` / ``normal`` (+ ``procedures``, ``derived`` when asked)."""
    client = await svc.client(tenant)
    return await client.search(**body.arguments())


@router.post(
    "/search-conversation", response_model=ConversationResult, summary="search the raw turns"
)
async def search_conversation(
    body: SearchConversationRequest, svc: Service, tenant: Tenant
) -> ConversationResult:
    """What was actually said (L0); governed text is never returned."""
    client = await svc.client(tenant)
    return await client.search_conversation(**body.arguments())


@router.post("/conversation", response_model=ConversationResult, summary="a session's raw turns")
async def conversation(
    body: ConversationRequest, svc: Service, tenant: Tenant
) -> ConversationResult:
    """A session's raw turns (L0) in the order they were said; governed text is never returned."""
    client = await svc.client(tenant)
    return await client.conversation(**body.arguments())


@router.get("/", response_model=list[MemoryItem], summary="list a user's memories")
async def list_memories(
    query: Annotated[ListQuery, Query()], svc: Service, tenant: Tenant
) -> list[MemoryItem]:
    """Newest first; ``include_history`` adds replaced and deleted versions."""
    client = await svc.client(tenant)
    return await client.list(**query.arguments())


@router.get("/{memory_id}", response_model=MemoryItem, summary="get one memory")
async def get(
    memory_id: MemoryId, client: Client, user_id: UserQuery = None, as_of: AsOfQuery = None
) -> MemoryItem:
    """With ``as_of``, the version of the memory that held then."""
    return await client.get(memory_id, user_id=user_id, as_of=as_of)


@router.get(
    "/{memory_id}/history", response_model=HistoryResult, summary="the audit trail of one memory"
)
async def history(
    memory_id: MemoryId, scope: Annotated[ScopeQuery, Query()], client: Client
) -> HistoryResult:
    """Its current state, relations and every step with its reason: the answer of
    ``/v1/hmg/history/{id}``, under the same scope rules, at the path of the memory."""
    return await client.history(memory_id, **scope.arguments())


@router.put("/{memory_id}", response_model=UpdateResult, summary="write a new version")
async def update(memory_id: MemoryId, body: UpdateRequest, client: Client) -> UpdateResult:
    """The old version stays in the evolution chain; the answer carries the new id."""
    new_id = await client.update(memory_id, **body.arguments())
    return UpdateResult(id=new_id, replaces=memory_id)


@router.delete("/{memory_id}", response_model=DeleteResult, summary="archive the current version")
async def delete(memory_id: MemoryId, client: Client, user_id: UserQuery = None) -> DeleteResult:
    """Gone from search, kept for history (``/v1/hmg/govern`` erases content)."""
    await client.delete(memory_id, user_id=user_id)
    return DeleteResult(id=memory_id)


@users_router.delete(
    "/{user_id}", response_model=ForgetResult, summary="erase everything about one user"
)
async def forget_user(user_id: UserId, client: Client, app_id: AppQuery = None) -> ForgetResult:
    """Tombstones every memory of the user in the key's tenant (every layer, status and app,
    or only ``app_id``'s): the text is gone from every read at once, and from disk after
    ``/v1/hmg/purge``. A second call answers ``tombstoned: 0``."""
    return await client.forget_user(user_id, app_id=app_id)
