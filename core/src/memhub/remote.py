"""``RemoteClient``: the client's API over HTTP, to a memhub REST service or the local hub.

Example:
    >>> async with RemoteClient("http://127.0.0.1:8000", api_key="mh_...") as client:
    ...     await client.add(content="我住在上海", user_id="alice")

Same methods and signatures as :class:`memhub.MemoryClient` (``SyncRemoteClient``: as
``SyncMemoryClient``), and the same errors: the server answers
``{"error": {"code", "message"}}`` and the ``code`` picks the ``MemHubError`` subclass.

The local hub (``memhub serve``) announces itself in ``<storage_dir>/hub.json``
(``{"url", "token", "pid"}``, mode 0600); :func:`connect_hub` reads it, and
``MemoryClient`` uses it when the hub holds the store it was asked to open.
"""

from __future__ import annotations

import builtins
import ipaddress
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from memhub import _transfer, errors
from memhub.engine import jsonl, transfer
from memhub.engine.owner import Owner
from memhub.errors import InvalidInputError, MemHubError, StoreLockedError
from memhub.models import (
    ConversationResult,
    CorrectResult,
    DigestResult,
    ExportResult,
    ForgetResult,
    GovernResult,
    HandoffResult,
    HistoryResult,
    ImportResult,
    MemorizeResult,
    MemoryItem,
    RecallResult,
    SearchResult,
    SessionContext,
    Stats,
    WriteResult,
)
from memhub.progress import Progress
from memhub.scope import SCOPE_KEYS, Scope, check_id, checked, git_scope
from memhub.store.base import StoredPoint, Where
from memhub.store.codec import point_from_json, point_to_json, where_to_json
from memhub.sync import SyncFace

__all__ = ["HUB_FILE", "Hub", "RemoteClient", "SyncRemoteClient", "connect_hub", "read_hub"]

HUB_FILE = "hub.json"
_IMPORT_CHUNK = 512 * 1024  # bytes per import request: well under the server's body limit

# The code of the JSON error body -> the class raised here (every class of memhub.errors).
_BY_CODE: dict[str, type[MemHubError]] = {
    cls.code: cls
    for cls in (getattr(errors, name) for name in errors.__all__)
    if issubclass(cls, MemHubError)
}


@dataclass(frozen=True)
class Hub:
    """A running local hub, as announced in ``hub.json``."""

    url: str
    token: str
    pid: int


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but another user's
        return True
    return True


def read_hub(storage_dir: str | Path | None) -> Hub | None:
    """The hub announced in ``<storage_dir>/hub.json`` if its process is alive, else ``None``."""
    if storage_dir is None:
        return None
    try:
        data = json.loads((Path(storage_dir) / HUB_FILE).read_text())
        hub = Hub(url=str(data["url"]), token=str(data["token"]), pid=int(data["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return hub if _alive(hub.pid) else None


async def connect_hub(
    storage_dir: str | Path | None, scope: Scope | None = None
) -> RemoteClient | None:
    """A client connected to the hub holding ``storage_dir``; ``None`` if no hub is
    running there.
    """
    hub = read_hub(storage_dir)
    if hub is None:
        return None
    client = RemoteClient(hub.url, hub.token, scope=scope)
    try:
        return await client.open()
    except MemHubError as err:
        await client.aclose()
        raise StoreLockedError(
            f"the memory store at {storage_dir} is held by the local hub (process {hub.pid}), "
            f"which did not answer at {hub.url}: {err}"
        ) from err


def _error(response: httpx.Response) -> MemHubError:
    try:
        body = response.json()["error"]
        code, message = str(body["code"]), str(body["message"])
    except (ValueError, KeyError, TypeError):
        code, message = "http_error", f"HTTP {response.status_code}: {response.text[:200]}"
    cls = _BY_CODE.get(code)
    if cls is None:
        # Codes the SDK has no class for: an oversize body is bad input; 401/5xx are the base class.
        cls = InvalidInputError if response.status_code == 413 else MemHubError
    err = cls(message)
    err.code = code  # keep the server's code, e.g. "unauthorized" or "payload_too_large"
    err.status_code = response.status_code  # type: ignore[attr-defined]
    return err


def _message(message: Any) -> Any:
    """An OpenAI-style message as JSON: dicts as they are, pydantic and plain objects by field."""
    if isinstance(message, dict):
        return message
    if hasattr(message, "model_dump"):
        return message.model_dump(mode="json", exclude_none=True)
    fields = (
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "name",
        "id",
        "occurred_at",
        "timestamp",
        "created_at",
    )
    out = {k: getattr(message, k) for k in fields if getattr(message, k, None) is not None}
    if "role" in out:
        out["role"] = getattr(out["role"], "value", out["role"])
    return out


def _loopback(url: str) -> bool:
    host = httpx.URL(url).host
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


class RemoteRecords:
    """:class:`memhub.records.Records` over HTTP: ``POST /v1/records/<call>``; the key sets the
    tenant.
    """

    def __init__(self, client: RemoteClient) -> None:
        self._client = client

    async def _call(self, name: str, **body: Any) -> Any:
        return await self._client._request("POST", f"/v1/records/{name}", body=body)

    async def get(
        self, collection: str, ids: Sequence[str], *, with_vectors: bool = False
    ) -> list[StoredPoint]:
        found = await self._call(
            "get", collection=collection, ids=list(ids), with_vectors=with_vectors
        )
        return [point_from_json(p) for p in found]

    async def scroll(
        self,
        collection: str,
        where: Where | None = None,
        *,
        limit: int = 256,
        offset: str | None = None,
        order_by: str | None = None,
        descending: bool = False,
    ) -> tuple[list[StoredPoint], str | None]:
        page = await self._call(
            "scroll",
            collection=collection,
            where=where_to_json(where),
            limit=limit,
            offset=offset,
            order_by=order_by,
            descending=descending,
        )
        return [point_from_json(p) for p in page["points"]], page["next"]

    async def count(self, collection: str, where: Where | None = None) -> int:
        return int(await self._call("count", collection=collection, where=where_to_json(where)))

    async def put(
        self, collection: str, points: Sequence[StoredPoint], *, only_if: Where | None = None
    ) -> None:
        await self._call(
            "put",
            collection=collection,
            points=[point_to_json(p) for p in points],
            only_if=where_to_json(only_if),
        )

    async def insert(self, payloads: Sequence[dict[str, Any]], texts: Sequence[str | None]) -> None:
        await self._call("insert", payloads=list(payloads), texts=list(texts))

    async def delete(self, collection: str, ids: Sequence[str]) -> None:
        await self._call("delete", collection=collection, ids=list(ids))

    async def search(
        self, query: str, where: Where, limit: int
    ) -> list[tuple[dict[str, Any], float]]:
        hits = await self._call("search", query=query, where=where_to_json(where), limit=limit)
        return [(h["payload"], float(h["score"])) for h in hits]


class RemoteClient:
    """:class:`memhub.MemoryClient`'s API over HTTP (see the module docstring).

    Args:
        base_url: e.g. ``http://127.0.0.1:8000``.
        api_key: sent as ``Authorization: Bearer <api_key>``; it also picks the tenant.
        scope: the default scope sent with every call (the tenant is ignored: the key sets it).
            Default: the git checkout of ``cwd`` (repository and branch), like ``MemoryClient``.
        cwd: where to infer that scope from (default: the working directory).
        timeout: seconds per request.
        transport: an ``httpx`` transport (e.g. ``httpx.ASGITransport(app)`` in tests).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        scope: Scope | None = None,
        cwd: str | Path | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if scope is None:
            scope = Scope().with_(**{k: v for k, v in git_scope(cwd).items() if k != "workspace"})
        self.base_url = base_url.rstrip("/")
        self.scope = scope
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # A proxy from the environment must never see loopback traffic (and the hub's token).
        self._http_args: dict[str, Any] = {
            "base_url": self.base_url,
            "headers": headers,
            "timeout": timeout,
            "transport": transport,
            "trust_env": not _loopback(self.base_url),
        }
        self._http: httpx.AsyncClient | None = None
        self.records = RemoteRecords(self)
        """The record API (:mod:`memhub.records`) over HTTP."""

    async def open(self) -> RemoteClient:
        """Check that the server answers (done on first use; call it to surface errors early)."""
        await self._request("GET", "/health")
        return self

    async def aclose(self) -> None:
        if self._http is not None:
            http, self._http = self._http, None
            await http.aclose()

    async def __aenter__(self) -> RemoteClient:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _request(
        self, method: str, path: str, *, body: dict | None = None, params: dict | None = None
    ) -> Any:
        if self._http is None:
            self._http = httpx.AsyncClient(**self._http_args)
        try:
            response = await self._http.request(
                method, path, json=body, params=params and _drop_none(params)
            )
        except httpx.HTTPError as err:
            unavailable = MemHubError(f"memhub server at {self.base_url} did not answer: {err}")
            unavailable.code = "unavailable"
            raise unavailable from err
        if response.is_error:
            raise _error(response)
        return response.json()

    def _scope(self, **given: str | None) -> dict[str, str]:
        """The default scope with the call's overrides, as the request fields (no tenant)."""
        if given.get("tenant") is not None:
            raise InvalidInputError("over HTTP the tenant is set by the API key, not per call")
        merged = self.scope.with_(**checked(**{k: v for k, v in given.items() if k != "tenant"}))
        return {k: v for k in SCOPE_KEYS if k != "tenant" and (v := getattr(merged, k)) is not None}

    def _user_scope(self, **given: str | None) -> dict[str, str]:
        """As ``_scope`` for the MemHub calls: the checkout's keys come only from the call."""
        fields = self._scope(**given)
        for key in ("workspace", "repository", "branch"):
            if given.get(key) is None:
                fields.pop(key, None)
        return fields

    def _apps(self, app_ids: list[str] | None) -> list[str] | None:
        return app_ids or ([self.scope.app_id] if self.scope.app_id else None)

    # -- HMG operations ---------------------------------------------------------------

    async def memorize(
        self,
        content: str,
        *,
        epistemic: str | None = None,
        polarity: str | None = None,
        source: str = "agent",
        metadata: dict | None = None,
        **scope: str | None,
    ) -> MemorizeResult:
        body = {
            "content": content,
            "epistemic": epistemic,
            "polarity": polarity,
            "source": source,
            "metadata": metadata,
            **self._scope(**scope),
        }
        return MemorizeResult.model_validate(
            await self._request("POST", "/v1/hmg/memorize", body=_drop_none(body))
        )

    async def recall(self, query: str, *, limit: int = 10, **scope: str | None) -> RecallResult:
        body = {"query": query, "limit": limit, **self._scope(**scope)}
        return RecallResult.model_validate(await self._request("POST", "/v1/hmg/recall", body=body))

    async def correct(
        self,
        target_atom: str,
        action: str,
        reason: str,
        new_content: str | None = None,
        **scope: str | None,
    ) -> CorrectResult:
        body = {
            "target_atom": target_atom,
            "action": action,
            "reason": reason,
            "new_content": new_content,
            **self._scope(**scope),
        }
        return CorrectResult.model_validate(
            await self._request("POST", "/v1/hmg/correct", body=_drop_none(body))
        )

    async def govern(
        self,
        target_atom: str,
        action: str,
        reason: str,
        lesson_content: str | None = None,
        **scope: str | None,
    ) -> GovernResult:
        body = {
            "target_atom": target_atom,
            "action": action,
            "reason": reason,
            "lesson_content": lesson_content,
            **self._scope(**scope),
        }
        return GovernResult.model_validate(
            await self._request("POST", "/v1/hmg/govern", body=_drop_none(body))
        )

    async def handoff(self, summary: str, **scope: str | None) -> HandoffResult:
        body = {"summary": summary, **self._scope(**scope)}
        return HandoffResult.model_validate(
            await self._request("POST", "/v1/hmg/handoff", body=body)
        )

    async def session_context(self, **scope: str | None) -> SessionContext:
        return SessionContext.model_validate(
            await self._request("POST", "/v1/hmg/context", body=self._scope(**scope))
        )

    async def history(self, atom_id: str, **scope: str | None) -> HistoryResult:
        data = await self._request(
            "GET", f"/v1/hmg/history/{quote(atom_id, safe='')}", params=self._scope(**scope)
        )
        return HistoryResult.model_validate(data)

    async def stats(self, **scope: str | None) -> Stats:
        return Stats.model_validate(
            await self._request("GET", "/v1/hmg/stats", params=self._scope(**scope))
        )

    async def purge(self, *, progress: Progress | None = None) -> None:
        """``progress`` is not reported over HTTP: the server rewrites its store by itself."""
        await self._request("POST", "/v1/hmg/purge")

    # -- MemHub operations ------------------------------------------------------------

    async def add(
        self,
        content: str | None = None,
        messages: list[Any] | None = None,
        *,
        user_id: str,
        app_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        workspace_id: str | None = None,
        branch: str | None = None,
        metadata: dict[str, Any] | None = None,
        occurred_at: str | None = None,
    ) -> WriteResult:
        s = self._user_scope(
            user_id=user_id,
            app_id=app_id,
            agent_id=agent_id,
            session_id=session_id,
            workspace=workspace_id,
            branch=branch,
        )
        workspace = s.pop("workspace", None)
        if workspace is not None:  # None is dropped from the body anyway
            s["workspace_id"] = workspace
        body = {
            "content": content,
            "messages": None if messages is None else [_message(m) for m in messages],
            "metadata": metadata,
            "occurred_at": occurred_at,
            **s,
        }
        return WriteResult.model_validate(
            await self._request("POST", "/v1/memories/", body=_drop_none(body))
        )

    async def search(
        self,
        query: str,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        procedure_limit: int = 0,
        procedure_min_score: float = 0.0,
        derived_context_limit: int | None = None,
        filters: dict[str, Any] | None = None,
    ) -> SearchResult:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        body = {
            "query": query,
            "user_id": user_id,
            "app_ids": self._apps(app_ids),
            "agent_id": s.get("agent_id"),
            "session_id": s.get("session_id"),
            "limit": limit,
            "procedure_limit": procedure_limit,
            "procedure_min_score": procedure_min_score,
            "derived_context_limit": derived_context_limit,
            "filters": filters,
        }
        return SearchResult.model_validate(
            await self._request("POST", "/v1/memories/search", body=_drop_none(body))
        )

    async def search_conversation(
        self,
        query: str,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
    ) -> ConversationResult:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        body = {
            "query": query,
            "user_id": user_id,
            "app_ids": self._apps(app_ids),
            "agent_id": s.get("agent_id"),
            "session_id": s.get("session_id"),
            "limit": limit,
        }
        data = await self._request(
            "POST", "/v1/memories/search-conversation", body=_drop_none(body)
        )
        return ConversationResult.model_validate(data)

    async def conversation(
        self,
        *,
        user_id: str,
        session_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        limit: int = 1000,
    ) -> ConversationResult:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        body = {
            "user_id": user_id,
            "app_ids": self._apps(app_ids),
            "agent_id": s.get("agent_id"),
            "session_id": s.get("session_id"),
            "limit": limit,
        }
        data = await self._request("POST", "/v1/memories/conversation", body=_drop_none(body))
        return ConversationResult.model_validate(data)

    async def get(self, memory_id: str, *, user_id: str | None = None) -> MemoryItem:
        data = await self._request(
            "GET", f"/v1/memories/{quote(memory_id, safe='')}", params={"user_id": user_id}
        )
        return MemoryItem.model_validate(data)

    async def list(
        self,
        *,
        user_id: str,
        app_ids: list[str] | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        include_history: bool = False,
        limit: int = 1000,
    ) -> list[MemoryItem]:
        s = self._user_scope(user_id=user_id, agent_id=agent_id, session_id=session_id)
        params = {
            "user_id": user_id,
            "app_ids": self._apps(app_ids),
            "agent_id": s.get("agent_id"),
            "session_id": s.get("session_id"),
            "include_history": include_history,
            "limit": limit,
        }
        return [
            MemoryItem.model_validate(m)
            for m in await self._request("GET", "/v1/memories/", params=params)
        ]

    async def update(self, memory_id: str, content: str, *, user_id: str | None = None) -> str:
        body = _drop_none({"content": content, "user_id": user_id})
        return str(
            (await self._request("PUT", f"/v1/memories/{quote(memory_id, safe='')}", body=body))[
                "id"
            ]
        )

    async def delete(self, memory_id: str, *, user_id: str | None = None) -> None:
        await self._request(
            "DELETE", f"/v1/memories/{quote(memory_id, safe='')}", params={"user_id": user_id}
        )

    async def forget_user(self, user_id: str, *, app_id: str | None = None) -> ForgetResult:
        user_id = check_id(user_id, "user_id")  # an empty one would address another route
        data = await self._request(
            "DELETE", f"/v1/users/{quote(user_id, safe='')}", params={"app_id": app_id}
        )
        return ForgetResult.model_validate(data)

    async def digest(self, *, mode: str | None = None) -> DigestResult:
        data = await self._request("POST", "/v1/hmg/digest", body=_drop_none({"mode": mode}))
        return DigestResult.model_validate(data)

    # -- moving memories --------------------------------------------------------------

    async def export(
        self,
        dest: _transfer.Dest,
        *,
        user_id: str | None = None,
        app_id: str | None = None,
        include_vectors: bool = False,
        progress: Progress | None = None,
    ) -> ExportResult:
        progress = progress or Progress()
        if self._http is None:
            self._http = httpx.AsyncClient(**self._http_args)
        params = _drop_none(
            {"user_id": user_id, "app_id": app_id, "include_vectors": include_vectors}
        )
        progress.start("export")
        exported = events = 0
        with _transfer.writer(dest) as write:
            try:
                async with self._http.stream("GET", "/v1/export", params=params) as response:
                    if response.is_error:
                        await response.aread()
                        raise _error(response)
                    async for line in response.aiter_lines():
                        if not line:
                            continue
                        write(line + "\n")
                        if '"memory":' in line:
                            exported += 1
                            events += len(json.loads(line).get("events") or [])
                            progress.advance(1)
            except httpx.HTTPError as err:
                unavailable = MemHubError(f"memhub server at {self.base_url} did not answer: {err}")
                unavailable.code = "unavailable"
                raise unavailable from err
        return ExportResult(exported=exported, events=events, vectors=include_vectors)

    async def import_(
        self,
        source: _transfer.Source,
        *,
        from_: str = "memhub",
        strict: bool = False,
        include_deleted: bool = False,
        progress: Progress | None = None,
    ) -> ImportResult:
        progress = progress or Progress()
        lines = _transfer.lines_of(
            source, from_, include_deleted=include_deleted, app_id=self.scope.app_id
        )
        if strict:  # checked here, so no chunk is sent if any line is bad
            transfer.validate(lines())
        progress.start("import", lines.count())
        total = ImportResult(imported=0, skipped=0)
        header, first, size = "", 0, 0
        chunk: builtins.list[str] = []
        for number, text in lines():
            if number == 1 and jsonl.read_header(text) is not None:
                header = text
                progress.advance(1)
                continue
            if not chunk:
                first = number
            chunk.append(text)
            size += len(text) + 1
            if size >= _IMPORT_CHUNK:
                await self._import_chunk(header, chunk, first, total, progress)
                chunk, size = [], 0
        if chunk:
            await self._import_chunk(header, chunk, first, total, progress)
        return total

    async def _import_chunk(
        self,
        header: str,
        chunk: builtins.list[str],
        first: int,
        total: ImportResult,
        progress: Progress,
    ) -> None:
        if self._http is None:
            self._http = httpx.AsyncClient(**self._http_args)
        body = "\n".join([header, *chunk] if header else chunk).encode()
        try:
            response = await self._http.post(
                "/v1/import",
                content=body,
                params={"first_line": first},
                headers={"Content-Type": "application/x-ndjson"},
            )
        except httpx.HTTPError as err:
            unavailable = MemHubError(f"memhub server at {self.base_url} did not answer: {err}")
            unavailable.code = "unavailable"
            raise unavailable from err
        if response.is_error:
            raise _error(response)
        part = ImportResult.model_validate(response.json())
        for key in ("imported", "skipped", "invalid", "embedded"):
            setattr(total, key, getattr(total, key) + getattr(part, key))
        total.errors += part.errors[: transfer.MAX_ERRORS - len(total.errors)]
        for note in part.notes:
            if note not in total.notes:
                total.notes.append(note)
                progress.note(note)
        progress.advance(len(chunk))


class SyncRemoteClient(SyncFace):
    """Blocking face of :class:`RemoteClient`: ``SyncMemoryClient``'s methods, over HTTP.

    Example:
        >>> with SyncRemoteClient("http://127.0.0.1:8000", api_key="mh_...") as client:
        ...     client.search("饮品偏好", user_id="u1")

    There is no ``settings``: the server's apply.
    """

    _client: RemoteClient

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        scope: Scope | None = None,
        cwd: str | Path | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._check_loop()
        client = RemoteClient(
            base_url, api_key, scope=scope, cwd=cwd, timeout=timeout, transport=transport
        )
        # a private owner loop: the HTTP pool belongs to the loop that made it
        self._attach(client, Owner("memhub-sync-remote"))

    @property
    def async_client(self) -> RemoteClient:
        """The async client behind this one; await its methods only through ``submit``."""
        return self._client

    def _shutdown(self) -> None:
        try:
            self._owner.call_sync(self._client.aclose())
        finally:
            self._owner.stop()
