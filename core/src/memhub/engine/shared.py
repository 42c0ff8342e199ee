"""One engine per store folder in a process: clients on the same ``storage_dir`` share it.

Qdrant Edge lets one process open a store once, so two adapters' objects each
built with ``storage_dir=``, or a sync and an async client on one folder, would
lock each other out with ``StoreLockedError`` naming their own process. Instead
the second client gets the engine of the first (same store, same owner loop,
same write lock), and the store closes when the last of them closes. The folder
lock still keeps every other process out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from memhub.embed.base import Embedder
from memhub.engine.core import Engine
from memhub.errors import EmbedderMismatchError

_GUARD = threading.Lock()
_ENGINES: dict[Path, tuple[Engine, int]] = {}


def acquire(
    storage_dir: Path, default_embedder: Callable[[], Embedder], embed: Embedder | None
) -> Engine:
    """The engine of ``storage_dir`` in this process, made on first use; one more user of it.

    ``embed`` (when given) must be the kind of embedder the shared engine already uses.
    """
    from memhub.store.edge import EdgeStore

    path = storage_dir.expanduser().resolve()
    with _GUARD:
        found = _ENGINES.get(path)
        if found is None:
            engine = Engine(EdgeStore(path), embed or default_embedder())
            _ENGINES[path] = (engine, 1)
            return engine
        engine, users = found
        if embed is not None and embed.name != engine.embedder.name:
            raise EmbedderMismatchError(
                f"the store at {path} is already open in this process with the embedder "
                f"{engine.embedder.name!r}, not {embed.name!r}"
            )
        _ENGINES[path] = (engine, users + 1)
        return engine


def release(engine: Engine) -> bool:
    """One user fewer; ``True`` when it was the last, and the caller closes the engine."""
    with _GUARD:
        for path, (known, users) in _ENGINES.items():
            if known is engine:
                if users > 1:
                    _ENGINES[path] = (known, users - 1)
                    return False
                del _ENGINES[path]
                return True
    return True
