"""The README quickstart: remember, recall, correct, and the MemHub add/search face. Offline."""

from __future__ import annotations

import os
import tempfile

from memhub import SyncMemoryClient

with tempfile.TemporaryDirectory() as tmp:
    os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
    with SyncMemoryClient(storage_dir=os.path.join(tmp, "data")) as client:
        pg16 = client.memorize("项目用 PostgreSQL 16 做主数据库，不用 MongoDB")
        print("recall:", client.recall("数据库选型").atoms[0].content)
        new = client.correct(
            pg16.atom_id,
            "replace",
            "已升级到 PostgreSQL 17",
            new_content="项目用 PostgreSQL 17 做主数据库",
        )
        print("supersedes:", client.history(new.new_atom_id).relations.supersedes == [pg16.atom_id])
        client.add(content="我最爱的编程语言是 Java", user_id="alice")
        print(
            "profile:", client.search("编程语言偏好", user_id="alice").memories.profile[0].content
        )
