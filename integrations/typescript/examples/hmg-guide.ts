// The HMG guide (日常使用指南), every TypeScript example in its order, as the guide writes
// it; only the client's construction is added, and `console.log` for what the guide's
// comments show. The guide's placeholder ids ("01HKX2ABCDEF...") are the ids the calls
// before them returned.
//
//   MEMHUB_URL=http://127.0.0.1:8000 MEMHUB_API_KEY=mh_... node dist/hmg-guide.js
import { MemoryClient } from "@memhub/client";

const client = new MemoryClient({
  baseUrl: process.env.MEMHUB_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.MEMHUB_API_KEY,
});

function show(label: string, value: unknown): void {
  console.log(`${label} ${JSON.stringify(value)}`);
}

// 从"记住一件事"开始
{
  const result = await client.memorize({
    content: "项目用 PostgreSQL 16 做主数据库，不用 MongoDB",
  });

  console.log(result.atom_id); // "01HKX2ABCDEF..."
  console.log(result.effect); // "applied"
}

// 如果重复存了呢？
const again = await client.memorize({ content: "项目用 PostgreSQL 16 做主数据库，不用 MongoDB" });
// → effect: "no_op"（去重命中，不会创建第二条）
show("dedupe.effect", again.effect);

// 记住了，然后怎么找回来？
let pg16: string;
{
  const result = await client.recall({
    query: "数据库选型",
  });
  // result.atoms: [{ atom_id, content, score, created_at, source }]
  show("recall.atoms", result.atoms);
  pg16 = result.atoms[0]!.atom_id;
}

// 记忆过时了怎么办？推荐做法：replace
let pg17: string;
{
  const result = await client.correct({
    target_atom: pg16, // "01HKX2ABCDEF..."
    action: "replace",
    reason: "已升级到 PostgreSQL 17",
    new_content: "项目用 PostgreSQL 17 做主数据库",
  });
  // → result.new_atom_id: "01NEW..."
  show("replace.new_atom_id", result.new_atom_id);
  pg17 = result.new_atom_id!;
}
show("recall.after_replace", (await client.recall({ query: "数据库选型" })).atoms[0]?.content);
show("history.pg17.supersedes", (await client.history({ atom_id: pg17 })).relations.supersedes);

// 什么时候不用 replace，只用 negate？
// 之前存过一条："用 MongoDB 做会话缓存"
const mongo = (await client.memorize({ content: "用 MongoDB 做会话缓存" })).atom_id;
// 现在这个方案整个废弃了，没有"新版本"，就是不用了
await client.correct({
  target_atom: mongo, // "01MONGO..."
  action: "negate",
  reason: "MongoDB 缓存方案已废弃，改用 Redis",
});
show(
  "recall.after_negate",
  (await client.recall({ query: "MongoDB 会话缓存" })).atoms.map((a) => a.content),
);

// 操作错了怎么恢复？negate 错了：
const mongoBack = await client.correct({
  target_atom: mongo, // 那条被 negate 的 atom
  action: "replace",
  reason: "negate 有误，MongoDB 缓存仍在使用",
  new_content: "用 MongoDB 做会话缓存，仍在使用",
});
show("recover_negate.new_atom_id", mongoBack.new_atom_id);

// replace 错了：
const pgBack = await client.correct({
  target_atom: pg17, // 那条错误的 "用 PG 17"
  action: "replace",
  reason: "升级取消，回退到 16",
  new_content: "项目用 PostgreSQL 16 做主数据库",
});
show("recover_replace.recall", (await client.recall({ query: "数据库选型" })).atoms[0]?.content);

// 有些记忆必须消失
// 这条记忆不该存在
// content: "数据库密码是 pg_admin_123，连接串是 postgres://..."
const leaked = await client.memorize({
  content: "数据库密码是 pg_admin_123，连接串是 postgres://admin:pg_admin_123@db:5432/app",
});
show("leak.redacted", leaked.redacted);
const secret = leaked.atom_id; // "01SECRET..."

// 最安全的方式：提取教训，封印原文
const governed = await client.govern({
  target_atom: secret, // "01SECRET..."
  action: "derive_lesson",
  reason: "内容含明文数据库密码，必须清除",
  lesson_content: "不要在记忆中存储数据库密码和连接串，使用环境变量",
});
// → result.lesson_atom_id: "01LESSON..."
show("govern.lesson_atom_id", governed.lesson_atom_id);
const lesson = governed.lesson_atom_id!;

// 会话结束时：交接给下一次
await client.handoff({
  summary:
    "修复了 login.py 的空指针问题。根因是 session 过期时 get_session() 返回 None，在 line 38 加了有效性检查，pytest 通过。风险：并发场景下 session 刷新可能有竞态。下一步：给 session 模块补集成测试。",
});
show("context.handoff", (await client.sessionContext()).handoff?.content);

// 想追溯一条记忆的完整历史？
{
  const result = await client.history({
    atom_id: lesson, // "01LESSON..."
  });
  show("history.lesson.current", {
    content: result.current.content,
    exposure_state: result.current.exposure_state,
  });
  show("history.lesson.relations", { related_lessons: result.relations.related_lessons });
  show("history.lesson.exposure_history", result.exposure_history);
}
{
  const result = await client.history({
    atom_id: secret, // "01SECRET..."
  });
  show("history.secret.current", {
    content: result.current.content,
    exposure_state: result.current.exposure_state,
  });
  show("history.secret.relations", { related_lessons: result.relations.related_lessons });
  show("history.secret.exposure_history", result.exposure_history);
}

// 看看 store 里有什么
const stats = await client.stats();
show("stats", stats);
show("ids", { pg16, pg17, pg16_again: pgBack.new_atom_id, mongo, secret, lesson });
