"""``MemoryClient``: the async SDK. Every other door wraps this."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from memhub.api import MemoryAPI, contract
from memhub.config import Settings
from memhub.embed._fair import caller as embed_caller
from memhub.embed.base import Embedder
from memhub.engine import shared
from memhub.engine.core import Engine, acting_tenant
from memhub.errors import StoreLockedError, UsageError
from memhub.local import LocalBackend
from memhub.records import Records
from memhub.scope import Scope, git_scope
from memhub.store.base import MemoryStore

if TYPE_CHECKING:
    from memhub.remote import RemoteClient

T = TypeVar("T")
P = ParamSpec("P")


def build_store(settings: Settings) -> MemoryStore:
    if settings.qdrant_url:
        from memhub.store.server import QdrantServerStore

        return QdrantServerStore(
            settings.qdrant_url,
            api_key=settings.secret("qdrant_api_key"),
            prefix=settings.collection_prefix,
        )
    from memhub.store.edge import EdgeStore

    return EdgeStore(settings.storage_dir)


def build_embedder(settings: Settings) -> Embedder:
    if settings.embed_api_key:
        from memhub.embed.openai_compat import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(
            settings.embed_model,
            settings.embed_dimensions,
            api_key=settings.secret("embed_api_key"),
            base_url=settings.embed_base_url,
            max_tokens=settings.embed_max_tokens,
            chars_per_token=settings.embed_chars_per_token,
        )
    from memhub.embed.e5 import E5Embedder

    return E5Embedder(max_tokens=min(settings.embed_max_tokens, 512))


def delegated(
    pick: Callable[[MemoryAPI], Callable[P, Coroutine[Any, Any, T]]],
) -> Callable[Concatenate[MemoryClient, P], Coroutine[Any, Any, T]]:
    """The operation ``pick`` names (:func:`memhub.api.contract`), run on the backend
    ``open()`` chose, on the engine's owner loop (``memhub.engine.owner``); the store
    opens on first use."""
    operation = contract(pick)

    @functools.wraps(operation)
    async def run(self: MemoryClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        backend = await self._backend()
        return await self.engine.owner.call(self._as_tenant(pick(backend)(*args, **kwargs)))

    run.__qualname__ = f"MemoryClient.{operation.__name__}"
    return run


class MemoryClient:
    """Long-term memory for an agent, async.

    Example:
        >>> async with MemoryClient(storage_dir="./.memhub_data") as client:
        ...     r = await client.memorize("项目用 PostgreSQL 16 做主数据库，不用 MongoDB")
        ...     hits = await client.recall("数据库选型")

    Args:
        mode: ``"system1"`` (default) or ``"dual"`` (adds ``digest()`` of L3 items).
        storage_dir: the embedded store's folder (default ``./.memhub_data``).
        settings: a ``Settings``; constructor arguments win over it.
        embed / llm / jev: injected providers (skip key checks).
        store: an injected ``MemoryStore`` (e.g. ``QdrantServerStore``).
        cwd: where to infer the git scope from (default: the working directory).
        engine: an ``Engine`` shared with other clients (the REST service keeps one per
            store and a light client per tenant); its owner opens and closes it.
        scope: the default scope of every call; given, nothing is inferred from git.

    The local hub: Qdrant Edge allows one process per store. When another process
    holds this client's ``storage_dir`` and that process is a running hub
    (``memhub serve``, which writes ``<storage_dir>/hub.json``), ``open()`` connects
    to the hub instead of failing, and every method runs there through a
    :class:`memhub.remote.RemoteClient` with this client's default scope (so memories
    still carry the git checkout's repository and branch). The hub's own embedder and
    models are used then; injected ones are not. Without a live hub, ``open()``
    raises ``StoreLockedError`` naming the holder.

    The operations are :class:`memhub.api.MemoryAPI`'s, each run on the backend
    ``open()`` chose: the engine here (:class:`memhub.local.LocalBackend`) or the hub's
    ``RemoteClient``.
    """

    def __init__(
        self,
        mode: str | None = None,
        storage_dir: str | Path | None = None,
        settings: Settings | None = None,
        embed: Embedder | None = None,
        llm: Any = None,
        jev: Any = None,
        *,
        store: MemoryStore | None = None,
        cwd: str | Path | None = None,
        engine: Engine | None = None,
        scope: Scope | None = None,
    ) -> None:
        overrides: dict[str, Any] = {
            "mode": mode,
            "storage_dir": str(storage_dir) if storage_dir else None,
        }
        if settings is None:
            settings = Settings.load(**overrides)
        elif any(v is not None for v in overrides.values()):
            settings = settings.model_copy(
                update={k: v for k, v in overrides.items() if v is not None}
            )
        self.settings = settings
        self._owns_engine = engine is None
        self._shared = engine is None and store is None and not settings.qdrant_url
        if self._shared:
            # one engine per store folder in this process (memhub.engine.shared)
            engine = shared.acquire(
                Path(settings.storage_dir), lambda: build_embedder(settings), embed
            )
        self.engine = engine or Engine(
            store or build_store(settings), embed or build_embedder(settings)
        )
        if scope is None:
            # The checkout's repository and branch bound what is recalled; its folder does
            # not (two clones of one repository share their memories).
            inferred = {k: v for k, v in git_scope(cwd).items() if k != "workspace"}
            scope = Scope(tenant=settings.tenant, app_id=settings.default_app_id).with_(**inferred)
        self.scope = scope
        self._local = LocalBackend(self.engine, settings, scope, llm, jev)
        self._remote: RemoteClient | None = None
        self._closed = False
        self.records = Records(self)
        """Framework adapters' own records beside the memories (:mod:`memhub.records`)."""

    async def open(self) -> MemoryClient:
        """Open the store (done on first use; call it to surface errors early).

        A store held by a running local hub is reached through the hub (see the class docstring).
        """
        try:
            await self.engine.owner.call(self._open())
        except BaseException:
            await self.aclose()  # a client that cannot open holds nothing
            raise
        return self

    async def _open(self) -> None:
        async with self.engine.owner.lock("client-open"):
            if self._remote is None:
                try:
                    await self.engine.open()
                except StoreLockedError:
                    from memhub.remote import connect_hub  # httpx is imported only for a hub

                    self._remote = await connect_hub(
                        getattr(self.engine.store, "path", None), self.scope
                    )
                    if self._remote is None:
                        raise

    @property
    def remote(self) -> RemoteClient | None:
        """The hub's client this one works through, once ``open()`` found its store held by
        a running hub (see the class docstring); ``None`` while the engine here serves it."""
        return self._remote

    async def aclose(self) -> None:
        """Close the client; the engine closes with the last client of its store folder."""
        if self._remote is not None:
            remote, self._remote = self._remote, None
            await self.engine.owner.call(remote.aclose())
        if self._closed or not self._owns_engine:
            return
        self._closed = True
        if not self._shared or shared.release(self.engine):
            await self.engine.close()

    def close(self) -> None:
        """Close the client from synchronous code (a script's end, a test's teardown).

        Inside async code, ``await client.aclose()`` (or ``async with``) instead: called
        there, ``close`` raises ``UsageError`` rather than block the running loop.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.aclose())
            return
        raise UsageError(
            "MemoryClient.close() was called inside a running event loop, which it would "
            "block; use `await client.aclose()` there"
        )

    async def __aenter__(self) -> MemoryClient:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _backend(self) -> MemoryAPI:
        """The backend the operations run on: the hub's when ``open()`` found one, else
        the engine here (opened on first use)."""
        if self._remote is None and not self.engine.is_open:
            await self.open()
        return self._local if self._remote is None else self._remote

    async def _as_tenant(self, operation: Coroutine[Any, Any, T]) -> T:
        """``operation`` with the embeddings it makes queued under the client's tenant
        (``embed._fair``) and its changes counted under it (``acting_tenant``); set on the
        owner loop, where it runs."""
        tokens = embed_caller.set(self.scope.tenant), acting_tenant.set(self.scope.tenant)
        try:
            return await operation
        finally:
            embed_caller.reset(tokens[0])
            acting_tenant.reset(tokens[1])

    # -- the operations: MemoryAPI's, each run on the chosen backend ------------------

    memorize = delegated(lambda api: api.memorize)
    recall = delegated(lambda api: api.recall)
    correct = delegated(lambda api: api.correct)
    govern = delegated(lambda api: api.govern)
    handoff = delegated(lambda api: api.handoff)
    session_context = delegated(lambda api: api.session_context)
    history = delegated(lambda api: api.history)
    stats = delegated(lambda api: api.stats)
    purge = delegated(lambda api: api.purge)

    add = delegated(lambda api: api.add)
    search = delegated(lambda api: api.search)
    search_conversation = delegated(lambda api: api.search_conversation)
    conversation = delegated(lambda api: api.conversation)
    get = delegated(lambda api: api.get)
    list = delegated(lambda api: api.list)
    update = delegated(lambda api: api.update)
    delete = delegated(lambda api: api.delete)
    forget_user = delegated(lambda api: api.forget_user)
    digest = delegated(lambda api: api.digest)

    export = delegated(lambda api: api.export)
    import_ = delegated(lambda api: api.import_)
