"""The store's layout version and the ordered steps from each version to the next.

A store records the version of its layout (``EdgeStore``: ``memhub_store.json`` in its
folder; ``QdrantServerStore``: the metadata of its ``meta`` collection, per prefix). At
``open()`` a store of an older version is moved up one step at a time, in order, and the
new version recorded after each step; a step run again (after a crash before its version
was recorded) finds its work done and changes nothing. A store of a version newer than
``LATEST`` was written by a newer memhub: it is refused before anything is touched.

Version 1 is every store written before versions were recorded. Its Edge shards may be in
any of the payload layouts memhub has written (``memhub.store.facets``): one index per key
before facets, facet tokens as strings, as text, as signed hashes, facet values without a
copy in the doc, emptiness marked for every key. Step 2 rewrites each such shard into
today's layout (as ``EdgeStore.compact`` does), so only the migration reads the old forms;
a server store keeps its payloads as given and needs no change.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from memhub.errors import MemHubError


class EdgeStore(Protocol):
    """What the steps use of ``memhub.store.edge.EdgeStore`` (a port: the stores import
    this module, not the other way round)."""

    @property
    def path(self) -> Path: ...

    def rewrite_outdated_shards(self) -> None: ...


class QdrantServerStore(Protocol):
    """What the steps use of ``memhub.store.server.QdrantServerStore``."""

    async def record_layout_version(self, version: int) -> None: ...


VERSION_FILE = "memhub_store.json"
UNVERSIONED = 1
"""The version of a store that records none: written before versions were."""


def _edge_shards_to_today(store: EdgeStore) -> None:
    """1 -> 2: every shard not in today's layout is rewritten in it."""
    store.rewrite_outdated_shards()


async def _server_unchanged(store: QdrantServerStore) -> None:
    """1 -> 2: a server keeps payloads as given and one index per key: nothing to move."""


EDGE: tuple[Callable[[EdgeStore], None], ...] = (_edge_shards_to_today,)
"""``EDGE[n - 1]`` moves an ``EdgeStore`` from version ``n`` to ``n + 1``."""
SERVER: tuple[Callable[[QdrantServerStore], Awaitable[None]], ...] = (_server_unchanged,)
"""``SERVER[n - 1]`` moves a ``QdrantServerStore`` from version ``n`` to ``n + 1``."""
LATEST = 1 + len(EDGE)
assert len(SERVER) == len(EDGE), "both stores step through the same versions"


def check_known(version: int, where: str) -> None:
    """Refuse a store this code cannot read: one of a newer layout (or a broken record)."""
    if not isinstance(version, int) or version < UNVERSIONED:
        raise MemHubError(f"the store at {where} records layout version {version!r}: not one")
    if version > LATEST:
        raise MemHubError(
            f"the store at {where} is in layout version {version}, newer than this memhub "
            f"reads (up to {LATEST}): it was written by a newer memhub; upgrade memhub to "
            "open it (nothing was changed)"
        )


def edge_version(folder: Path) -> int | None:
    """The version an Edge store's folder records; ``None`` for a folder without a store."""
    recorded = folder / VERSION_FILE
    if recorded.exists():
        try:
            return json.loads(recorded.read_text())["version"]  # type: ignore[no-any-return]
        except (ValueError, KeyError, TypeError) as err:
            raise MemHubError(f"cannot read the store's layout version in {recorded}") from err
    has_store = folder.is_dir() and any(
        (entry / "edge_config.json").exists() or entry.name.endswith((".new", ".old"))
        for entry in folder.iterdir()
        if entry.is_dir()
    )
    return UNVERSIONED if has_store else None


def record_edge_version(folder: Path, version: int) -> None:
    """Write ``version`` to the folder's record, whole or not at all."""
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / (VERSION_FILE + ".part")
    part.write_text(json.dumps({"version": version}) + "\n")
    part.replace(folder / VERSION_FILE)


def migrate_edge(store: EdgeStore, version: int) -> int:
    """Run ``EDGE``'s steps from ``version`` on (the store's worker thread, its folder
    locked), recording each version reached; the version it ends in."""
    while version < LATEST:
        EDGE[version - 1](store)
        version += 1
        record_edge_version(store.path, version)
    return version


async def migrate_server(store: QdrantServerStore, version: int) -> int:
    """``migrate_edge`` for a server store: ``SERVER``'s steps from ``version`` on."""
    while version < LATEST:
        await SERVER[version - 1](store)
        version += 1
        await store.record_layout_version(version)
    return version
