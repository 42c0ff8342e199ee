"""Fixtures for the MCP server tests."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from memhub import SyncMemoryClient
from memhub.testing import HashEmbedder


@pytest.fixture(scope="session")
def new_store(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """``new_store(path)``: an empty store (made with the test embedder) at ``path``.

    Creating a Qdrant Edge store syncs to disk once per payload index, seconds on a busy
    disk; each server under test opens a copy of one empty store made once instead.
    """
    template = tmp_path_factory.mktemp("mcp-store-template") / "store"
    with SyncMemoryClient(storage_dir=template, embed=HashEmbedder(), cwd=template.parent):
        pass

    def copy(path: Path) -> Path:
        shutil.copytree(template, path, symlinks=True)
        return path

    return copy
