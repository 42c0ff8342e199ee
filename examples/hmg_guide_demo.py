"""The HMG guide, end to end, offline: memorize, dedupe, recall, replace, negate,
derive_lesson on a leaked password, handoff, history and stats.

Run: make demo   (or: .venv/bin/python examples/hmg_guide_demo.py)
"""

from __future__ import annotations

import os
import tempfile

from memhub import SyncMemoryClient


def step(title: str) -> None:
    print(f"\n== {title}")


def show_history(client: SyncMemoryClient, atom_id: str) -> None:
    h = client.history(atom_id)
    print(f"  current : {h.current.content}  [{h.current.status}, {h.current.exposure_state}]")
    rel = h.relations
    print(
        f"  relations: supersedes={rel.supersedes} superseded_by={rel.superseded_by} "
        f"related_lessons={rel.related_lessons} chain={len(rel.chain)} version(s)"
    )
    for kind, steps in (
        ("status", h.status_history),
        ("exposure", h.exposure_history),
        ("epistemic", h.epistemic_history),
    ):
        for s in steps:
            print(
                f"  {kind:<9} {s.from_ or '-'} -> {s.to}  ({s.action}) reason={s.reason!r} "
                f"by={s.by} at={s.at}"
            )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("MEMHUB_CONFIG", os.path.join(tmp, "config.yaml"))
        with SyncMemoryClient(storage_dir=os.path.join(tmp, "data")) as client:
            scope = client._client.scope  # inferred from the git checkout, if any
            print(f"scope: repository={scope.repository} branch={scope.branch}")

            step("memorize a decision")
            pg16 = client.memorize("项目用 PostgreSQL 16 做主数据库，不用 MongoDB")
            print(f"  atom_id={pg16.atom_id} effect={pg16.effect} epistemic={pg16.epistemic}")

            step("memorize it again")
            again = client.memorize("项目用 PostgreSQL 16 做主数据库，不用 MongoDB")
            print(f"  effect={again.effect} (duplicate of {again.duplicate_of})")

            mongo = client.memorize("用 MongoDB 做会话缓存")
            client.memorize("前端用 React 18 和 TypeScript")
            client.memorize("所有 API 必须加认证")

            step('recall "数据库选型"')
            for a in client.recall("数据库选型", limit=3).atoms:
                print(f"  {a.score:.2f}  {a.content}  ({a.created_at})")

            step("correct: replace PostgreSQL 16 -> 17")
            fixed = client.correct(
                pg16.atom_id,
                "replace",
                "已升级到 PostgreSQL 17",
                new_content="项目用 PostgreSQL 17 做主数据库",
            )
            print(f"  new_atom_id={fixed.new_atom_id}; recall now returns:")
            for a in client.recall("数据库选型", limit=1).atoms:
                print(f"  {a.score:.2f}  {a.content}")

            step("correct: negate the MongoDB cache")
            client.correct(mongo.atom_id, "negate", "MongoDB 缓存方案已废弃，改用 Redis")
            hits = [a.content for a in client.recall("MongoDB 缓存").atoms]
            print(f"  still recalled: {'用 MongoDB 做会话缓存' in hits}")

            step("a leaked password: derive_lesson")
            leak = client.memorize(
                "数据库密码是 pg_admin_123，连接串是 postgres://admin:pg_admin_123@db:5432/app"
            )
            print(
                f"  stored as: {client.history(leak.atom_id).current.content}  "
                f"(redacted: {leak.redacted})"
            )
            lesson = client.govern(
                leak.atom_id,
                "derive_lesson",
                "内容含明文数据库密码，必须清除",
                lesson_content="不要在记忆中存储数据库密码和连接串，使用环境变量",
            )
            print(f"  sealed {leak.atom_id}; lesson {lesson.lesson_atom_id}")

            step("handoff")
            client.handoff(
                "修复了 login.py 的空指针问题。根因是 session 过期时 get_session() 返回 None，"
                "在 line 38 加了有效性检查，pytest 通过。下一步：给 session 模块补集成测试。"
            )
            ctx = client.session_context()
            print(f"  next session starts with: {ctx.handoff.content[:40]}…")
            print(f"  constraints: {[c.content for c in ctx.constraints]}")

            step("history of the new PostgreSQL atom")
            show_history(client, fixed.new_atom_id)
            step("history of the sealed atom")
            show_history(client, leak.atom_id)

            step("stats")
            print(f"  {client.stats().model_dump()}")


if __name__ == "__main__":
    main()
