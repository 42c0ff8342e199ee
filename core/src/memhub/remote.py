"""``RemoteClient``: the client's API over HTTP, to a memhub REST service or the local hub.

Example:
    >>> async with RemoteClient("http://127.0.0.1:8000", api_key="mh_...") as client:
    ...     await client.add(content="我住在上海", user_id="alice")

Same methods, signatures and docs as :class:`memhub.MemoryClient`, taken from the contract
they share (:class:`memhub.api.MemoryAPI`): each
operation is one request to its REST route, listed once in ``RemoteClient``'s body
(:func:`over_http`, :data:`ROUTES`); ``export`` and ``import_`` stream. ``SyncRemoteClient``
is to it what ``SyncMemoryClient`` is to ``MemoryClient``. The errors are the same: the
server answers ``{"error": {"code", "message"}}`` and the ``code`` picks the
``MemHubError`` subclass. ``purge`` reports no ``progress`` over HTTP (the server rewrites
its store by itself).

The local hub's announcement (``HUB_FILE``, ``read_hub``) lives in :mod:`memhub.hub` and
is importable from here too; :func:`connect_hub` is how ``MemoryClient.open`` reaches the
hub holding its store.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import inspect
import ipaddress
import json
import string
import typing
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar, cast
from urllib.parse import quote

import httpx
from pydantic import TypeAdapter

from memhub import _transfer, errors
from memhub.api import MemoryAPI
from memhub.config import Settings
from memhub.engine.owner import Owner
from memhub.engine.transfer import jsonl, transfer
from memhub.errors import (
    InvalidInputError,
    MemHubError,
    NotFoundError,
    StoreLockedError,
    UsageError,
)
from memhub.hub import HUB_FILE, Hub, read_hub
from memhub.messages import split_messages
from memhub.models import ExportResult, ImportResult, WriteResult
from memhub.progress import Progress
from memhub.records import Records
from memhub.scope import (
    CHECKOUT_KEYS,
    SCOPE_KEYS,
    Scope,
    call_scope,
    check_id,
    git_scope,
    recall_overrides,
)
from memhub.store.base import StoredPoint
from memhub.store.codec import point_from_json, point_to_json, where_to_json
from memhub.sync_face import SyncFace, constructor_of

__all__ = [  # the hub's announcement too, as before memhub.hub held it
    "HUB_FILE",
    "ROUTES",
    "Hub",
    "RemoteClient",
    "SyncRemoteClient",
    "connect_hub",
    "read_hub",
]

T = TypeVar("T")
P = ParamSpec("P")

_IMPORT_CHUNK = 512 * 1024  # bytes per import request: well under the server's body limit

# The code of the JSON error body -> the class raised here (every class of memhub.errors).
_BY_CODE: dict[str, type[MemHubError]] = {
    cls.code: cls
    for cls in (getattr(errors, name) for name in errors.__all__)
    if issubclass(cls, MemHubError)
}


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
    # the HTTP status rides along for callers that map it back; MemHubError does not declare it
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


def _joined(results: list[WriteResult]) -> WriteResult:
    """One add's answer from the answers of its parts, in order."""
    first = results[0]
    return WriteResult(
        memory_id=first.memory_id,
        extracted_count=sum(r.extracted_count for r in results),
        commit_passed=any(r.commit_passed for r in results),
        decisions=[d for r in results for d in r.decisions],
        scene="coding" if any(r.scene == "coding" for r in results) else first.scene,
        procedure_ids=[i for r in results for i in r.procedure_ids],
        raw_ids=[i for r in results for i in r.raw_ids],
        memory_ids=[i for r in results for i in r.memory_ids],
    )


def _loopback(url: str) -> bool:
    host = httpx.URL(url).host
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


_NOT_SENT = frozenset({"progress"})  # reported only in process: the server works by itself
_USER_KEYS = ("user_id", "app_id", "agent_id", "session_id", "branch")


@dataclass(frozen=True)
class Route:
    """How one operation travels: the ``method`` and ``path`` of its REST route (a ``{name}``
    in the path takes that argument), how the client's default scope fills its fields
    (``scope``: ``"hmg"`` or ``"user"``, see :meth:`RemoteClient._fields`), and the field of
    the answer it returns (``pick``) when not the whole answer."""

    name: str
    method: str
    path: str
    scope: Literal["hmg", "user"] | None = None
    pick: str | None = None

    @property
    def path_args(self) -> tuple[str, ...]:
        return tuple(name for _, name, _, _ in string.Formatter().parse(self.path) if name)

    @property
    def in_query(self) -> bool:
        """Whether the arguments travel in the query string (else as a JSON body)."""
        return self.method in ("GET", "DELETE")


ROUTES: dict[str, Route] = {}
"""Each operation's route by name: what ``RemoteClient`` sends, and what the REST tests check."""


def over_http(
    operation: Callable[Concatenate[MemoryAPI, P], Coroutine[Any, Any, T]],
    route: str,
    *,
    scope: Literal["hmg", "user"] | None = None,
    pick: str | None = None,
) -> Callable[Concatenate[RemoteClient, P], Coroutine[Any, Any, T]]:
    """One ``MemoryAPI`` operation as one request to its REST route (``"POST /v1/..."``).

    Same name, signature and docs as the operation. The call's arguments are bound to
    that signature and sent under their own names, in the path, the query string or
    the JSON body; the answer is validated as the operation's return type.
    """
    name = operation.__name__
    method, path = route.split(" ", 1)
    spec = ROUTES[name] = Route(name, method, path, scope, pick)
    signature = inspect.signature(operation)
    extra = next((p.name for p in signature.parameters.values() if p.kind is p.VAR_KEYWORD), "")
    returns = typing.get_type_hints(operation)["return"]
    answer = None if returns is type(None) else TypeAdapter(returns)

    @functools.wraps(operation)
    async def call(self: RemoteClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = {k: v for k, v in bound.arguments.items() if k not in ("self", extra)}
        data = await self._send(spec, arguments, bound.arguments.get(extra, {}))
        if answer is None:
            return cast(T, None)  # the operation returns nothing
        return answer.validate_python(data[pick] if pick else data)

    call.__qualname__ = f"RemoteClient.{name}"
    return call


def implemented(
    operation: Callable[Concatenate[MemoryAPI, P], Coroutine[Any, Any, T]],
) -> Callable[
    [Callable[..., Coroutine[Any, Any, T]]],
    Callable[Concatenate[RemoteClient, P], Coroutine[Any, Any, T]],
]:
    """An operation that is more than one request, written here: it gets the operation's
    signature and docs, and is called with every argument by name, defaults applied."""
    signature = inspect.signature(operation)

    def adopt(
        implementation: Callable[..., Coroutine[Any, Any, T]],
    ) -> Callable[Concatenate[RemoteClient, P], Coroutine[Any, Any, T]]:
        @functools.wraps(operation)
        async def call(self: RemoteClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            return await implementation(**bound.arguments)

        call.__qualname__ = f"RemoteClient.{operation.__name__}"
        return call

    return adopt


def _path_segment(name: str, value: Any) -> str:
    if name == "user_id":
        value = check_id(value, name)  # an empty one would address another route
    elif not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} must be a non-empty string")
    return quote(value, safe="")


def _unreachable(base_url: str, err: httpx.HTTPError) -> MemHubError:
    unavailable = MemHubError(f"memhub server at {base_url} did not answer: {err}")
    unavailable.code = "unavailable"
    return unavailable


def over_records(
    operation: Callable[Concatenate[Records, P], Coroutine[Any, Any, T]],
    decode: Callable[[Any], T] | None = None,
) -> Callable[Concatenate[RemoteRecords, P], Coroutine[Any, Any, T]]:
    """One :class:`memhub.records.Records` call as ``POST /v1/records/<call>``: the same
    signature and docs, the arguments by name as JSON, the answer through ``decode``."""
    name = operation.__name__
    signature = inspect.signature(operation)

    @functools.wraps(operation)
    async def call(self: RemoteRecords, /, *args: P.args, **kwargs: P.kwargs) -> T:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        body = {k: _record_json(k, v) for k, v in bound.arguments.items() if k != "self"}
        data = await self._client._request("POST", f"/v1/records/{name}", body=body)
        return cast(T, None) if decode is None else decode(data)

    call.__qualname__ = f"RemoteRecords.{name}"
    return call


def _record_json(name: str, value: Any) -> Any:
    if name in ("where", "only_if"):
        return where_to_json(value)
    if name == "points":
        return [point_to_json(p) for p in value]
    return list(value) if isinstance(value, list | tuple) else value


def _points(data: Any) -> list[StoredPoint]:
    return [point_from_json(p) for p in data]


def _page(data: Any) -> tuple[list[StoredPoint], str | None]:
    return _points(data["points"]), data["next"]


def _hits(data: Any) -> list[tuple[dict[str, Any], float]]:
    return [(h["payload"], float(h["score"])) for h in data]


class RemoteRecords:
    """:class:`memhub.records.Records` over HTTP: ``POST /v1/records/<call>``; the key sets the
    tenant. Not what only a process holding the store can do (``writes``, ``put_now``,
    ``scroll_now``): other clients of the server write its records too.
    """

    def __init__(self, client: RemoteClient) -> None:
        self._client = client

    get = over_records(Records.get, _points)
    scroll = over_records(Records.scroll, _page)
    count = over_records(Records.count, int)
    put = over_records(Records.put)
    insert = over_records(Records.insert)
    delete = over_records(Records.delete)
    search = over_records(Records.search, _hits)

    @property
    def tenant(self) -> str:
        """The tenant of the client's key, learned by ``RemoteClient.open()``."""
        tenant = self._client._tenant
        if tenant is None:
            raise UsageError("open the RemoteClient first: its key's tenant is not known yet")
        return tenant


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
        self._max_messages_per_add: int | None = None
        self.records = RemoteRecords(self)
        """The record API (:mod:`memhub.records`) over HTTP."""
        self._tenant: str | None = None

    async def open(self) -> RemoteClient:
        """Check that the server answers and takes the key, and learn the key's tenant
        (``records.tenant``); calls made without it open nothing."""
        self._learn_limits(await self._request("GET", "/health"))
        with contextlib.suppress(NotFoundError):  # a server from before: records.tenant unknown
            self._tenant = (await self._request("GET", "/v1/records/tenant"))["tenant"]
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
            raise _unreachable(self.base_url, err) from err
        if response.is_error:
            raise _error(response)
        return response.json()

    async def _max_messages(self) -> int:
        """The server's ``max_messages_per_add``, from its ``/health``: read by ``open()``, or
        asked here once."""
        if self._max_messages_per_add is None:
            self._learn_limits(await self._request("GET", "/health"))
        assert self._max_messages_per_add is not None
        return self._max_messages_per_add

    def _learn_limits(self, health: dict[str, Any]) -> None:
        """Keep the limits a ``/health`` answer gives (a server that does not say: defaults)."""
        default = Settings.model_fields["max_messages_per_add"].default
        self._max_messages_per_add = int(health.get("max_messages_per_add") or default)

    async def _send(self, route: Route, arguments: dict[str, Any], scope: dict[str, Any]) -> Any:
        """One operation's request: its arguments by name, filled from the default scope."""
        fields = {k: v for k, v in arguments.items() if k not in _NOT_SENT}
        if route.scope == "hmg":
            if route.name == "recall":  # as MemoryAPI.recall: "*" is not this branch
                scope = recall_overrides(self.scope, **scope)
            fields.update(self._scope(scope))
        elif route.scope == "user":
            fields.update(self._user_fields(fields))
        path = route.path.format(**{k: _path_segment(k, fields.pop(k)) for k in route.path_args})
        if fields.get("messages") is not None:
            fields["messages"] = [_message(m) for m in fields["messages"]]
        fields = _drop_none(fields)
        if route.in_query:
            return await self._request(route.method, path, params=fields)
        return await self._request(route.method, path, body=fields)

    def _scope(self, given: dict[str, str | None], *, user: bool = False) -> dict[str, str]:
        """The call's scope (:func:`memhub.scope.call_scope`) as the request fields: no tenant,
        and for a MemHub call (``user``) the checkout's keys only where the call names them."""
        if given.get("tenant") is not None:
            raise InvalidInputError("over HTTP the tenant is set by the API key, not per call")
        given = {k: v for k, v in given.items() if k != "tenant"}
        merged = call_scope(self.scope, given, user=user)
        return {
            k: v
            for k in SCOPE_KEYS
            if k != "tenant"
            and (v := getattr(merged, k)) is not None
            and not (user and k in CHECKOUT_KEYS and given.get(k) is None)
        }

    def _user_fields(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A MemHub call's scope fields: its user, app, agent and session default to the
        client's; its ``workspace_id`` and ``branch`` and its repository come only from
        the call; ``app_ids`` defaults to the client's app."""
        given = {k: fields[k] for k in _USER_KEYS if k in fields}
        if "workspace_id" in fields:
            given["workspace"] = fields["workspace_id"]
        merged = self._scope(given, user=True)
        out: dict[str, Any] = {k: merged.get(k) for k in given}
        if "workspace_id" in fields:
            out["workspace_id"] = out.pop("workspace")
        if "app_ids" in fields:
            default = [self.scope.app_id] if self.scope.app_id else None
            out["app_ids"] = fields["app_ids"] or default
        return out

    # -- the operations: MemoryAPI's, each one request to its REST route ---------------

    memorize = over_http(MemoryAPI.memorize, "POST /v1/hmg/memorize", scope="hmg")
    recall = over_http(MemoryAPI.recall, "POST /v1/hmg/recall", scope="hmg")
    correct = over_http(MemoryAPI.correct, "POST /v1/hmg/correct", scope="hmg")
    govern = over_http(MemoryAPI.govern, "POST /v1/hmg/govern", scope="hmg")
    handoff = over_http(MemoryAPI.handoff, "POST /v1/hmg/handoff", scope="hmg")
    session_context = over_http(MemoryAPI.session_context, "POST /v1/hmg/context", scope="hmg")
    history = over_http(MemoryAPI.history, "GET /v1/hmg/history/{atom_id}", scope="hmg")
    stats = over_http(MemoryAPI.stats, "GET /v1/hmg/stats", scope="hmg")
    purge = over_http(MemoryAPI.purge, "POST /v1/hmg/purge")

    _add_request = over_http(MemoryAPI.add, "POST /v1/memories/", scope="user")

    @implemented(MemoryAPI.add)
    async def add(
        self, content: str | None, messages: builtins.list[Any] | None, **arguments: Any
    ) -> WriteResult:
        """``POST /v1/memories/``; a conversation longer than the server takes in one add
        (``max_messages_per_add`` on its ``/health``) goes as several, in order, with the same
        scope and session. If one fails, the parts before it stay stored (messages with an
        ``id`` are not stored twice when the add is sent again)."""
        if not isinstance(messages, builtins.list | tuple) or not messages:
            return await self._add_request(content, messages, **arguments)  # the server says why
        parts = split_messages([_message(m) for m in messages], await self._max_messages())
        results = [await self._add_request(None, part, **arguments) for part in parts]
        return results[0] if len(results) == 1 else _joined(results)

    search = over_http(MemoryAPI.search, "POST /v1/memories/search", scope="user")
    search_conversation = over_http(
        MemoryAPI.search_conversation, "POST /v1/memories/search-conversation", scope="user"
    )
    conversation = over_http(MemoryAPI.conversation, "POST /v1/memories/conversation", scope="user")
    get = over_http(MemoryAPI.get, "GET /v1/memories/{memory_id}")
    list = over_http(MemoryAPI.list, "GET /v1/memories/", scope="user")
    update = over_http(MemoryAPI.update, "PUT /v1/memories/{memory_id}", pick="id")
    delete = over_http(MemoryAPI.delete, "DELETE /v1/memories/{memory_id}")
    forget_user = over_http(MemoryAPI.forget_user, "DELETE /v1/users/{user_id}")
    digest = over_http(MemoryAPI.digest, "POST /v1/hmg/digest")

    # -- moving memories --------------------------------------------------------------

    @implemented(MemoryAPI.export)
    async def export(
        self,
        dest: _transfer.Dest,
        user_id: str | None,
        app_id: str | None,
        include_vectors: bool,
        progress: Progress | None,
    ) -> ExportResult:
        """A stream of ``GET /v1/export``, written to ``dest`` line by line."""
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
                raise _unreachable(self.base_url, err) from err
        return ExportResult(exported=exported, events=events, vectors=include_vectors)

    @implemented(MemoryAPI.import_)
    async def import_(
        self,
        source: _transfer.Source,
        from_: str,
        strict: bool,
        include_deleted: bool,
        progress: Progress | None,
    ) -> ImportResult:
        """``POST /v1/import`` of the lines in chunks well under the server's body limit."""
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
            raise _unreachable(self.base_url, err) from err
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

    @constructor_of(RemoteClient)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._check_loop()
        client = RemoteClient(*args, **kwargs)
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
