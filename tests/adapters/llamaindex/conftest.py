"""LlamaIndex adapter fixtures."""

from __future__ import annotations

import pytest

from memhub import SyncMemoryClient
from memhub.testing import HashEmbedder


@pytest.fixture
def sync_client(tmp_path):
    client = SyncMemoryClient(storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path)
    yield client
    client.close()
