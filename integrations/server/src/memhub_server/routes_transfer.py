"""Moving memories: ``GET /v1/export`` and ``POST /v1/import`` (JSON Lines,
``memhub.engine.transfer.jsonl``).

The SDK calls of the same name, in the tenant of the request's key: an export holds
that tenant's memories only, and an import writes into that tenant whatever the file
says, looking its ids up in that tenant only (``memhub.engine.transfer._import_ids``).
``RemoteClient.import_`` sends a file in chunks under the body limit, each with the
file's header line and ``first_line``, so errors name the file's lines.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from memhub.engine.transfer import jsonl, transfer
from memhub.models import ImportResult
from memhub_server.deps import Client
from memhub_server.schemas import Id

router = APIRouter()

NDJSON = "application/x-ndjson"


@router.get(
    "/export",
    summary="every memory version with its audit trail, as JSON Lines",
    response_class=StreamingResponse,
    responses={200: {"content": {NDJSON: {}}}},
)
async def export(
    client: Client,
    user_id: Annotated[Id | None, Query()] = None,
    app_id: Annotated[Id | None, Query()] = None,
    include_vectors: bool = False,
) -> StreamingResponse:
    """The header line, then one line per memory (sealed and tombstoned ones without text)."""
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    async def produce() -> None:
        try:
            await client.export(
                _QueueWriter(queue), user_id=user_id, app_id=app_id, include_vectors=include_vectors
            )
        finally:
            queue.put_nowait(None)

    async def stream() -> AsyncIterator[str]:
        task = asyncio.create_task(produce())
        try:
            while (chunk := await queue.get()) is not None:
                yield chunk
            await task  # an error after the first bytes ends the stream early
        finally:
            task.cancel()

    return StreamingResponse(stream(), media_type=NDJSON)


class _QueueWriter:
    """Lines written on the engine's owner loop, queued for the response on this loop."""

    def __init__(self, queue: asyncio.Queue[str | None]) -> None:
        self.queue = queue
        self.loop = asyncio.get_running_loop()

    def write(self, text: str) -> int:
        self.loop.call_soon_threadsafe(self.queue.put_nowait, text)
        return len(text)


@router.post(
    "/import",
    response_model=ImportResult,
    summary="add the memories of an export; safe to repeat",
    openapi_extra={"requestBody": {"content": {NDJSON: {"schema": {"type": "string"}}}}},
)
async def import_(
    request: Request,
    client: Client,
    first_line: Annotated[
        int, Query(ge=1, description="the file's line number of the first memory line")
    ] = 2,
    strict: bool = False,
) -> ImportResult:
    """The body: JSON Lines, optionally starting with the export's header line. Memories
    whose id this tenant has are skipped; bad lines are reported (``strict``: nothing applied)."""
    text = (await request.body()).decode("utf-8", errors="replace")
    lines = text.splitlines()
    numbered: list[tuple[int, str]] = []
    if lines and jsonl.read_header(lines[0]) is not None:
        numbered.append((1, lines.pop(0)))
    numbered += [(first_line + i, line) for i, line in enumerate(lines)]
    # the engine call, not client.import_: the lines keep the file's numbers
    if strict:
        transfer.validate(numbered)
    # on the engine's owner loop, where its write lock lives (memhub.engine.owner)
    return await client.engine.owner.call(
        transfer.import_lines(client.engine, numbered, client.scope.tenant, total=len(numbered))
    )
