"""``SyncFace``: the blocking operations over an async client that lives on one owner loop.

Each operation is :class:`memhub.api.MemoryAPI`'s own, made blocking by :func:`blocking`:
same name, signature and docstring, and its one job is to submit the async client's
coroutine to the client's owner loop (``memhub.engine.owner``) and wait for it. No logic
and no signature is written here or in the faces built on it: ``SyncMemoryClient``
(:mod:`memhub.sync`) over a ``MemoryClient`` and ``SyncRemoteClient`` (:mod:`memhub.remote`)
over a ``RemoteClient``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from memhub.api import ClientAPI, MemoryAPI, contract
from memhub.engine.owner import Owner
from memhub.errors import UsageError

T = TypeVar("T")
P = ParamSpec("P")


def blocking(
    pick: Callable[[MemoryAPI], Callable[P, Coroutine[Any, Any, T]]],
) -> Callable[Concatenate[SyncFace, P], T]:
    """The blocking face of the operation ``pick`` names (:func:`memhub.api.contract`): the
    same name, signature and docs.

    The call goes to the face's async client through the contract, so one definition
    serves a local client and a remote one alike.
    """
    operation = contract(pick)

    @functools.wraps(operation)
    def call(self: SyncFace, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(pick(self._client)(*args, **kwargs))

    call.__qualname__ = f"SyncFace.{operation.__name__}"
    return call


def constructor_of(
    cls: Callable[P, Any],
) -> Callable[[Callable[..., None]], Callable[Concatenate[Any, P], None]]:
    """Give a face's ``__init__`` the signature (and type) of ``cls``'s, which it forwards to."""

    def adopt(init: Callable[..., None]) -> Callable[Concatenate[Any, P], None]:
        # only __wrapped__: inspect.signature then shows the constructor it forwards to
        return functools.update_wrapper(init, cls.__init__, assigned=(), updated=())

    return adopt


class SyncFace:
    """The blocking operations over an async client that lives on one owner loop.

    A subclass's constructor builds the async client and calls :meth:`_attach`; the
    operations below are :class:`memhub.api.MemoryAPI`'s, each submitted to that loop.
    """

    _client: ClientAPI
    _owner: Owner
    _closed: bool = True

    def _attach(self, client: ClientAPI, owner: Owner) -> None:
        """Adopt ``client`` on ``owner``'s loop and open it (closing everything if that fails)."""
        self._client, self._owner, self._closed = client, owner, False
        try:
            self._run(client.open())
        except BaseException:
            self._closed = True
            self._shutdown()
            raise

    def _shutdown(self) -> None:
        raise NotImplementedError  # each face closes its client (and loop) its own way

    @property
    def async_client(self) -> ClientAPI:
        """The async client behind this one; await its methods only through ``submit``."""
        return self._client

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coro`` (a call on ``async_client``) on the engine's owner loop.

        For code that already runs an event loop and holds a ``SyncMemoryClient``:
        ``await asyncio.wrap_future(client.submit(client.async_client.search(...)))``
        (or simply ``await client.async_client.search(...)``, which goes there too).
        """
        if self._closed:
            coro.close()
            raise UsageError(f"this {type(self).__name__} is closed")
        return self._owner.submit(coro)

    @staticmethod
    def _check_loop() -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        raise UsageError(
            "SyncMemoryClient cannot be used inside a running event loop; "
            "use MemoryClient and await its methods there"
        )

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            self._check_loop()
        except UsageError:
            coro.close()
            raise
        if self._closed:
            coro.close()
            raise UsageError(f"this {type(self).__name__} is closed")
        return self._owner.call_sync(coro)

    def close(self) -> None:
        if not self._closed:
            self._check_loop()
            self._closed = True
            self._shutdown()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the operations: MemoryAPI's, made blocking (the parity tests guard the list) --

    memorize = blocking(lambda api: api.memorize)
    recall = blocking(lambda api: api.recall)
    correct = blocking(lambda api: api.correct)
    govern = blocking(lambda api: api.govern)
    handoff = blocking(lambda api: api.handoff)
    session_context = blocking(lambda api: api.session_context)
    history = blocking(lambda api: api.history)
    stats = blocking(lambda api: api.stats)
    purge = blocking(lambda api: api.purge)

    add = blocking(lambda api: api.add)
    search = blocking(lambda api: api.search)
    search_conversation = blocking(lambda api: api.search_conversation)
    conversation = blocking(lambda api: api.conversation)
    get = blocking(lambda api: api.get)
    list = blocking(lambda api: api.list)
    update = blocking(lambda api: api.update)
    delete = blocking(lambda api: api.delete)
    forget_user = blocking(lambda api: api.forget_user)
    digest = blocking(lambda api: api.digest)

    export = blocking(lambda api: api.export)
    import_ = blocking(lambda api: api.import_)
