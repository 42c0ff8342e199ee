"""Coding memory (spec example): a troubleshooting session becomes a procedure; a new fix supersedes
it.

Tool outputs are never stored: the procedure keeps the problem, the fix and the files touched.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile

from memhub import MemoryClient


def session(fix: str) -> list[dict]:
    return [
        {"role": "user", "content": "app/db.py 高并发写入偶发 database is locked"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "read_file",
                        "arguments": json.dumps({"path": "app/db.py"}),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "conn = sqlite3.connect(db_path, timeout=5.0)",
        },
        {"role": "assistant", "content": fix},
    ]


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        async with MemoryClient(storage_dir=os.path.join(tmp, "data"), cwd=tmp) as client:
            first = await client.add(
                messages=session("写事务改为 BEGIN IMMEDIATE，timeout 调到 30s。"),
                user_id="alice",
                workspace_id="~/code/app",
                branch="main",
            )
            print(first.scene, first.procedure_ids)

            res = await client.search(
                query="SQLite database is locked 怎么解决", user_id="alice", procedure_limit=3
            )
            for m in res.memories.procedures:
                p = m.procedure
                print(p.task, "->", p.solution, p.files, m.evolution_chain)

            # A later session finds a better fix: it supersedes the first one, and the chain points
            # back.
            await client.add(
                messages=session("改用 WAL 模式（PRAGMA journal_mode=WAL），写入走单一队列。"),
                user_id="alice",
                workspace_id="~/code/app",
                branch="main",
            )
            res = await client.search(
                query="SQLite database is locked 怎么解决", user_id="alice", procedure_limit=3
            )
            for m in res.memories.procedures:
                print("now:", m.procedure.solution, "replaces", m.evolution_chain)


if __name__ == "__main__":
    asyncio.run(main())
