"""Every channel a secret can come in by is redacted before it reaches disk or an embedding:
content (memorize and add), metadata values, tool-call arguments, procedure fields, and
the store's lock file."""

from __future__ import annotations

import sys

import pytest
from secret_formats import rows
from store_files import files_containing, files_containing_any

from memhub import MemoryClient, StoreLockedError
from memhub.store._lock import DirLock
from memhub.testing import HashEmbedder

ROWS = rows()


def _coding_session(secret_command: str) -> list[dict]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {
            "name": "bash",
            "arguments": {"command": secret_command, "env": {"DB_PASSWORD": "Zq8-env"}},
        },
    }
    return [
        {"role": "user", "content": "psql 连接报错 FATAL: password authentication failed"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "psql: error"},
        {"role": "assistant", "content": "用 ~/.pgpass 保存凭据，不要写在命令行里"},
    ]


async def test_no_format_reaches_the_store_files(storage_dir, tmp_path):
    async with MemoryClient(storage_dir=storage_dir, embed=HashEmbedder(), cwd=tmp_path) as client:
        for i, (name, _, text, _, _) in enumerate(ROWS):
            if i % 2:
                await client.memorize(
                    f"{name}: {text}", metadata={"note": text, "api_key": f"Kk{i}-meta"}
                )
            else:
                await client.add(
                    f"note {i}: {text}", user_id="alice", metadata={"db_password": f"Pw{i}-meta"}
                )
        result = await client.add(
            messages=_coding_session("PGPASSWORD=Xk9pQ2zz psql -h db app"), user_id="alice"
        )
        assert result.scene == "coding" and result.procedure_ids
        procedure = await client.get(result.procedure_ids[0], user_id="alice")
        stored = await client.get(result.raw_ids[0], user_id="alice")
    keys = procedure.procedure.search_keys if procedure.procedure else []
    assert "psql" in keys and not any("Xk9pQ2zz" in k for k in keys)
    assert stored.metadata == {}

    secrets = [secret for _, _, _, secret, _ in ROWS]
    secrets += [f"Kk{i}-meta" for i in range(len(ROWS))] + [f"Pw{i}-meta" for i in range(len(ROWS))]
    secrets += ["Xk9pQ2zz", "Zq8-env"]
    assert files_containing_any(storage_dir, [s.encode() for s in secrets]) == {}
    # the scan can see what was written: the non-secret words are on disk
    assert files_containing(storage_dir, b"pgpass")


async def test_metadata_comes_back_redacted(client):
    r = await client.memorize(
        "the staging database is pg-2", metadata={"db_password": "hunter2x", "env": "staging"}
    )
    atom = await client.get(r.atom_id)
    assert atom.metadata == {"db_password": "[REDACTED:password]", "env": "staging"}


def test_the_lock_file_holds_no_arguments(tmp_path, monkeypatch):
    secret = "sk-" + "proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
    monkeypatch.setattr(sys, "argv", ["/opt/tools/memhub", "serve", "--api-key", secret])
    holder = DirLock(tmp_path)
    holder.acquire()
    try:
        assert secret not in (tmp_path / ".lock").read_text()
        with pytest.raises(StoreLockedError) as err:
            DirLock(tmp_path).acquire()
    finally:
        holder.release()
    message = str(err.value)
    assert secret not in message and "--api-key" not in message
    assert "(memhub)" in message and "/opt/tools" not in message
