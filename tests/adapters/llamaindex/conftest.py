"""LlamaIndex adapter fixtures."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator

import pytest

from memhub import SyncMemoryClient
from memhub.testing import HashEmbedder


@pytest.fixture(autouse=True)
def loop_for_llamaindex_sync_calls(request: pytest.FixtureRequest) -> Iterator[None]:
    """LlamaIndex's sync methods run their coroutines on ``asyncio.get_event_loop()``'s loop,
    which in a sync test would be a loop nobody closes (``ResourceWarning`` when collected):
    give them one, and close it after the test. Async tests run on pytest-asyncio's."""
    if inspect.iscoroutinefunction(request.function):
        yield
        return
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()


@pytest.fixture
def sync_client(tmp_path):
    client = SyncMemoryClient(storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path)
    yield client
    client.close()
