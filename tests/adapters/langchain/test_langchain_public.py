"""The public surface of memhub-langchain, and the install hint of its optional classic memory."""

from __future__ import annotations

import importlib
import sys

import pytest

import memhub_langchain


def test_public_surface_is_pinned():
    assert sorted(memhub_langchain.__all__) == [
        "MemHubChatMessageHistory",
        "MemHubMemory",
        "MemHubMiddleware",
        "MemHubRetriever",
        "MemHubState",
    ]
    for name in memhub_langchain.__all__:
        assert getattr(memhub_langchain, name).__doc__


def test_classic_memory_without_the_extra_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_classic", None)
    monkeypatch.setitem(sys.modules, "langchain_classic.base_memory", None)
    monkeypatch.delitem(sys.modules, "memhub_langchain.memory", raising=False)
    with pytest.raises(ImportError, match=r'pip install "memhub-langchain\[classic\]"'):
        importlib.import_module("memhub_langchain.memory")
    with pytest.raises(ImportError, match=r"memhub-langchain\[classic\]"):
        memhub_langchain.MemHubMemory  # noqa: B018
