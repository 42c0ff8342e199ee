"""The HMG face: ``/v1/hmg`` (memorize, recall, correct, govern, handoff, context, history, stats,
purge) and ``digest`` (dual mode).

Each route is the SDK call of the same name, its body (or query) the call's keyword
arguments (``Body.arguments``); the scope fields (``user_id``, ``repository``,
``branch``, ...) are its ``**scope``. There is no ``tenant`` field: the API key decides it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from memhub.models import (
    CorrectResult,
    DigestResult,
    GovernResult,
    HandoffResult,
    HistoryResult,
    MemorizeResult,
    RecallResult,
    SessionContext,
    Stats,
)
from memhub.scope import MAX_ID
from memhub_server.deps import Admin, Client
from memhub_server.errors import ErrorResponse
from memhub_server.schemas import (
    CorrectRequest,
    DigestRequest,
    GovernRequest,
    HandoffRequest,
    MemorizeRequest,
    PurgeResult,
    RecallRequest,
    ScopeFields,
    ScopeQuery,
)

router = APIRouter()

AtomId = Annotated[str, Path(min_length=1, max_length=MAX_ID, description="an atom id (ULID)")]


@router.post("/memorize", response_model=MemorizeResult, summary="store one fact")
async def memorize(body: MemorizeRequest, client: Client) -> MemorizeResult:
    """Secrets are redacted first; a duplicate in the scope is a ``no_op``."""
    return await client.memorize(**body.arguments())


@router.post("/recall", response_model=RecallResult, summary="hybrid search over current memories")
async def recall(body: RecallRequest, client: Client) -> RecallResult:
    return await client.recall(**body.arguments())


@router.post("/correct", response_model=CorrectResult, summary="change what is believed")
async def correct(body: CorrectRequest, client: Client) -> CorrectResult:
    """``replace`` (needs ``new_content``), ``negate``, ``confirm_actual``, ``confirm_necessary``,
    ``demote``.
    """
    return await client.correct(**body.arguments())


@router.post("/govern", response_model=GovernResult, summary="change whether it may exist")
async def govern(body: GovernRequest, client: Client) -> GovernResult:
    """``quarantine``/``release``, ``seal``, ``tombstone``, ``derive_lesson`` (needs
    ``lesson_content``).
    """
    return await client.govern(**body.arguments())


@router.post(
    "/handoff", response_model=HandoffResult, summary="leave a summary for the next session"
)
async def handoff(body: HandoffRequest, client: Client) -> HandoffResult:
    return await client.handoff(**body.arguments())


@router.post("/context", response_model=SessionContext, summary="session-start context")
async def context(body: ScopeFields, client: Client) -> SessionContext:
    """The latest handoff first, then the scope's ``necessary`` constraints."""
    return await client.session_context(**body.arguments())


@router.get(
    "/history/{atom_id}", response_model=HistoryResult, summary="the audit trail of one memory"
)
async def history(
    atom_id: AtomId, scope: Annotated[ScopeQuery, Query()], client: Client
) -> HistoryResult:
    return await client.history(atom_id, **scope.arguments())


@router.get("/stats", response_model=Stats, summary="what the tenant's store holds")
async def stats(scope: Annotated[ScopeQuery, Query()], client: Client) -> Stats:
    return await client.stats(**scope.arguments())


@router.post(
    "/purge",
    response_model=PurgeResult,
    summary="erase governed content from disk (operator key)",
    responses={
        403: {"model": ErrorResponse, "description": "a tenant's key: purge needs an operator's"}
    },
)
async def purge(_: Admin, client: Client) -> PurgeResult:
    """Rewrites the store so sealed and tombstoned content is physically gone (may take a while).

    The store is shared by every tenant, so this needs an operator's key (``memhub keys
    create --admin``); a tenant's key gets 403. A tenant erases its own users with
    ``DELETE /v1/users/{user_id}`` (``forget_user``): their text is gone from every answer
    at once, and from the files on disk at the operator's next purge.
    """
    await client.purge()
    return PurgeResult()


@router.post(
    "/digest",
    response_model=DigestResult,
    summary="dual mode: derive L3 patterns once per pending scope",
)
async def digest(body: DigestRequest, client: Client) -> DigestResult:
    """Processes the tenant's scopes written since the last digest; ``processed`` is
    0 in system1.
    """
    return await client.digest(**body.arguments())
