// The README's TypeScript quickstart, line for line (the client's construction reads
// the service's address from the environment).
//
//   MEMHUB_URL=http://127.0.0.1:8000 MEMHUB_API_KEY=mh_... node dist/quickstart.js
import { MemoryClient } from "@memhub/client";

const client = new MemoryClient({
  baseUrl: process.env.MEMHUB_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.MEMHUB_API_KEY,
});
const pg16 = await client.memorize({ content: "项目用 PostgreSQL 16 做主数据库，不用 MongoDB" });
console.log((await client.recall({ query: "数据库选型" })).atoms[0]?.content);
const fixed = await client.correct({
  target_atom: pg16.atom_id,
  action: "replace",
  reason: "已升级到 PostgreSQL 17",
  new_content: "项目用 PostgreSQL 17 做主数据库",
});
console.log((await client.history({ atom_id: fixed.new_atom_id! })).relations.supersedes); // [pg16.atom_id]
await client.add({ content: "我最爱的编程语言是 Java", user_id: "alice" });
console.log((await client.search({ query: "编程语言偏好", user_id: "alice" })).memories.profile[0]?.content);
console.log(`ids ${JSON.stringify({ pg16: pg16.atom_id })}`);
