"""Agentica adapter fixtures. Agentica creates and reads ``$AGENTICA_HOME`` on import: keep it in a
temp dir.
"""

from __future__ import annotations

import os
import tempfile

os.environ["AGENTICA_HOME"] = tempfile.mkdtemp(prefix="memhub-agentica-home-")

import pytest  # noqa: E402

from memhub import SyncMemoryClient  # noqa: E402
from memhub.testing import HashEmbedder  # noqa: E402


@pytest.fixture
def sync_client(tmp_path):
    client = SyncMemoryClient(storage_dir=tmp_path / "store", embed=HashEmbedder(), cwd=tmp_path)
    yield client
    client.close()
