"""``/v1/records``: framework adapters' own records (``memhub.records``) over HTTP.

What ``RemoteClient.records`` sends, so that LangGraph's store and checkpointer
work through the local hub and against a server as they do locally. Each route is
the ``client.records`` call of the same name on the request's tenant: its guard
narrows every read to the tenant and refuses writes to another tenant's records.
It is the client's wire protocol, so it is left out of the OpenAPI document.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from memhub.records import record_collection
from memhub.store.base import Collection, Where
from memhub.store.codec import point_from_json, point_to_json, where_from_json
from memhub_server.deps import Client

router = APIRouter()

_MAX = 10_000  # records per call


class _Collection(BaseModel):
    collection: str

    @property
    def checked(self) -> Collection:
        """The collection, if records live there; else a 400 naming those they live in."""
        return record_collection(self.collection)


class GetRequest(_Collection):
    ids: list[str] = Field(max_length=_MAX)
    with_vectors: bool = False


class ScrollRequest(_Collection):
    where: dict[str, Any] | None = None
    limit: int = Field(256, ge=1, le=_MAX)
    offset: str | None = None
    order_by: str | None = None
    descending: bool = False


class CountRequest(_Collection):
    where: dict[str, Any] | None = None


class PutRequest(_Collection):
    points: list[dict[str, Any]] = Field(max_length=_MAX)
    only_if: dict[str, Any] | None = None


class InsertRequest(BaseModel):
    payloads: list[dict[str, Any]] = Field(max_length=_MAX)
    texts: list[str | None] = Field(max_length=_MAX)


class DeleteRequest(_Collection):
    ids: list[str] = Field(max_length=_MAX)


class SearchRequest(BaseModel):
    query: str
    where: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=_MAX)


@router.get("/tenant", summary="the tenant the key writes records in")
async def tenant(client: Client) -> dict[str, str]:
    """Adapters put it in the ids they derive (``MemHubStore``'s item ids), as they do locally."""
    return {"tenant": client.records.tenant}


@router.post("/get", summary="records by id")
async def get(body: GetRequest, client: Client) -> list[dict[str, Any]]:
    found = await client.records.get(body.checked, body.ids, with_vectors=body.with_vectors)
    return [point_to_json(p) for p in found]


@router.post("/scroll", summary="a page of records matching a filter")
async def scroll(body: ScrollRequest, client: Client) -> dict[str, Any]:
    points, nxt = await client.records.scroll(
        body.checked,
        where_from_json(body.where),
        limit=body.limit,
        offset=body.offset,
        order_by=body.order_by,
        descending=body.descending,
    )
    return {"points": [point_to_json(p) for p in points], "next": nxt}


@router.post("/count", summary="how many records match a filter")
async def count(body: CountRequest, client: Client) -> int:
    return await client.records.count(body.checked, where_from_json(body.where))


@router.post("/put", summary="insert or replace records")
async def put(body: PutRequest, client: Client) -> None:
    points = [point_from_json(p) for p in body.points]
    await client.records.put(body.checked, points, only_if=where_from_json(body.only_if))


@router.post("/insert", summary="store item records, embedded by the server")
async def insert(body: InsertRequest, client: Client) -> None:
    await client.records.insert(body.payloads, body.texts)


@router.post("/delete", summary="delete records by id")
async def delete(body: DeleteRequest, client: Client) -> None:
    await client.records.delete(body.checked, body.ids)


@router.post("/search", summary="item records by hybrid retrieval, scored by cosine")
async def search(body: SearchRequest, client: Client) -> list[dict[str, Any]]:
    where = where_from_json(body.where)
    hits = await client.records.search(body.query, where or Where(), body.limit)
    return [{"payload": p, "score": s} for p, s in hits]
