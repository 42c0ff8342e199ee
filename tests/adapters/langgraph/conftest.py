"""LangGraph adapter fixtures: real memhub stores (Qdrant Edge in a temp dir, or
qdrant-client's ``:memory:`` mode), the deterministic embedder, no network."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from memhub import MemoryClient
from memhub.store.server import QdrantServerStore
from memhub.testing import HashEmbedder


@pytest.fixture
def make_client(tmp_path):
    """``make_client(name, backend="edge", embed=None)``: a fresh, unopened ``MemoryClient``
    (closed after the test, so its store lock and files are released)."""
    made: list[MemoryClient] = []

    def make(name: str = "store", backend: str = "edge", embed=None) -> MemoryClient:
        embed = embed or HashEmbedder()
        if backend == "qdrant-local":
            client = MemoryClient(store=QdrantServerStore(":memory:"), embed=embed, cwd=tmp_path)
        else:
            client = MemoryClient(storage_dir=tmp_path / name, embed=embed, cwd=tmp_path)
        made.append(client)
        return client

    yield make
    with ThreadPoolExecutor(1) as pool:  # outside any test event loop
        for client in made:
            pool.submit(asyncio.run, client.aclose()).result()


_REPORTS: list[str] = []


@pytest.fixture
def conformance_reports() -> list[str]:
    """Where conformance tests leave their report; printed in the terminal summary."""
    return _REPORTS


def pytest_terminal_summary(terminalreporter) -> None:
    for report in _REPORTS:
        terminalreporter.write_sep("=", "langgraph-checkpoint-conformance")
        terminalreporter.write_line(report.rstrip())
