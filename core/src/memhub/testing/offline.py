"""The deterministic ``HashEmbedder`` in place of the bundled e5 model, for tests of the faces.

Tests of the command-line faces (CLI, REST service, MCP server) build their clients the
way a user's process does, without an embedder of their own. These helpers make that
default the ``HashEmbedder`` (fast, offline, reproducible), from the test side only:
production code reads no switch for it.

- in process: ``use_hash_embedder(monkeypatch)``, undone when the test ends;
- in a subprocess: ``python -m memhub.testing.offline MODULE [ARG ...]`` runs ``MODULE``
  as ``__main__`` (e.g. ``memhub_mcp --transport stdio``) after the same swap.

A store written this way can only be reopened this way (``EmbedderMismatchError``).
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Sequence
from typing import Protocol

from memhub.testing.embedder import HashEmbedder

__all__ = ["main", "use_hash_embedder"]


class _Patcher(Protocol):
    def setattr(self, target: object, name: str, value: object) -> None: ...


def _hash_embedder(**_: object) -> HashEmbedder:
    return HashEmbedder()


def use_hash_embedder(monkeypatch: _Patcher | None = None) -> None:
    """Make ``HashEmbedder`` the default embedder of every client and service built from
    now on in this process (with ``monkeypatch``: until the test ends)."""
    from memhub.embed import e5

    # the one place the default is built: memhub.client.build_embedder reads it per call
    if monkeypatch is None:
        setattr(e5, "E5Embedder", _hash_embedder)  # noqa: B010 -- a module attribute swapped on purpose
    else:
        monkeypatch.setattr(e5, "E5Embedder", _hash_embedder)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m memhub.testing.offline MODULE [ARG ...]``: run ``MODULE`` as ``__main__``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        raise SystemExit("usage: python -m memhub.testing.offline MODULE [ARG ...]")
    use_hash_embedder()
    sys.argv = args
    runpy.run_module(args[0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
