// The HMG guide's TypeScript examples and the framework examples, run as written against
// a real `memhub serve-api` (each in its own tenant), with their printed results checked.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { runExample, startService } from "./service.mjs";

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
let service;

before(async () => {
  service = await startService(["guide", "memhub", "langchain", "vercel", "quickstart"]);
});
after(async () => {
  await service?.stop();
});

test("the HMG guide runs as written and prints what its comments show", () => {
  const { lines, shown } = runExample("hmg-guide", service.url, service.keys.guide);
  const { pg16, pg17, secret, lesson } = shown.ids;

  // console.log(result.atom_id); console.log(result.effect);
  assert.match(lines[0], ULID);
  assert.equal(lines[0], pg16);
  assert.equal(lines[1], "applied");
  assert.equal(shown["dedupe.effect"], "no_op");

  const [top] = shown["recall.atoms"];
  assert.equal(top.atom_id, pg16);
  assert.equal(top.content, "项目用 PostgreSQL 16 做主数据库，不用 MongoDB");
  assert.equal(top.source, "agent");
  assert.ok(top.score > 0 && !Number.isNaN(Date.parse(top.created_at)));

  assert.equal(shown["replace.new_atom_id"], pg17);
  assert.equal(shown["recall.after_replace"], "项目用 PostgreSQL 17 做主数据库");
  assert.deepEqual(shown["history.pg17.supersedes"], [pg16]);
  assert.ok(!shown["recall.after_negate"].includes("用 MongoDB 做会话缓存"));
  assert.match(shown["recover_negate.new_atom_id"], ULID);
  assert.equal(shown["recover_replace.recall"], "项目用 PostgreSQL 16 做主数据库");

  // the connection string was redacted on the way in; the lesson replaces the secret
  assert.ok(shown["leak.redacted"].includes("connection_string"));
  assert.equal(shown["govern.lesson_atom_id"], lesson);
  assert.match(shown["context.handoff"], /^修复了 login\.py 的空指针问题/);

  assert.deepEqual(shown["history.lesson.current"], {
    content: "不要在记忆中存储数据库密码和连接串，使用环境变量",
    exposure_state: "visible",
  });
  assert.deepEqual(shown["history.lesson.relations"], { related_lessons: [secret] });
  assert.deepEqual(shown["history.lesson.exposure_history"], []);
  assert.deepEqual(shown["history.secret.current"], {
    content: "[governed payload hidden: sealed]",
    exposure_state: "sealed",
  });
  assert.deepEqual(shown["history.secret.relations"], { related_lessons: [lesson] });
  const [sealed] = shown["history.secret.exposure_history"];
  assert.equal(sealed.from, "visible");
  assert.equal(sealed.to, "sealed");
  assert.match(sealed.reason, /^内容含明文数据库密码/);
  assert.equal(sealed.by, "agent");
  assert.ok(!JSON.stringify(shown).includes("pg_admin_123"), "the password came back");

  const { stats } = shown;
  assert.deepEqual(Object.keys(stats.indexes).sort(), [
    "categorical",
    "keyword",
    "semantic",
    "temporal",
  ]);
  assert.ok(stats.atoms >= 7 && stats.edges >= 4 && stats.snapshot_version > 0);
});

test("the MemHub operations: add, search, searchConversation, get, update, list, delete", () => {
  const { shown } = runExample("memhub", service.url, service.keys.memhub);
  assert.deepEqual(shown["add.events"], ["ADD"]);
  assert.equal(shown["search.java"], "我最爱的编程语言是 Java");
  assert.equal(shown["searchConversation.first"], "我住在上海，平时喝绿茶");
  assert.equal(shown["get.content"], "我最爱的编程语言是 Java");
  assert.equal(shown["update.replaces"], true);
  assert.equal(shown["get.updated"], "我最爱的编程语言是 Rust");
  assert.ok(shown["list.count"] >= 2);
  assert.equal(shown["list.after_delete"], false);
  assert.deepEqual(shown.error, { class: "NotFoundError", code: "not_found", status: 404 });
});

test("LangChain.js: the retriever puts the user's memories into the chain's prompt", () => {
  const { shown } = runExample("langchain", service.url, service.keys.langchain);
  assert.match(shown.prompt, /- 我对花生过敏/);
  assert.match(shown.prompt, /- 我最喜欢的菜系是川菜/);
  assert.equal(shown.answer, "推荐一道不含花生的川菜：麻婆豆腐。");
  assert.equal(shown.added, 2);
});

test("Vercel AI SDK: memories in the system prompt, the conversation added at the end", () => {
  const { shown } = runExample("vercel-ai", service.url, service.keys.vercel);
  assert.match(shown.system, /- 我的项目部署在 AWS 东京区域/);
  assert.match(shown.system, /- 我习惯用 pnpm 管理依赖/);
  assert.equal(shown.answer, "在东京区域用 pnpm install 后再部署即可。");
  assert.equal(shown.added, 2);
});

test("each example's tenant sees only its own memories", async () => {
  const response = await fetch(`${service.url}/v1/memories/search`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${service.keys.vercel}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ query: "花生过敏", user_id: "lc-user" }),
  });
  const { memories } = await response.json();
  assert.deepEqual([...memories.profile, ...memories.normal], []);
});

test("by id from another checkout: the same user reaches it, another user gets not_found", async () => {
  const { MemoryClient, NotFoundError } = await import("@memhub/client");
  const client = new MemoryClient({ baseUrl: service.url, apiKey: service.keys.guide });
  const web = { user_id: "dev", repository: "acme/web", branch: "main" };
  const api = { user_id: "dev", repository: "acme/api", branch: "dev" };
  const { atom_id } = await client.memorize({ content: "发布前先跑 make check", ...web });

  assert.deepEqual((await client.recall({ query: "发布", ...api })).atoms, []);
  assert.equal((await client.history({ atom_id, ...api })).current.content, "发布前先跑 make check");
  assert.equal((await client.get({ memory_id: atom_id, user_id: "dev" })).id, atom_id);
  const other = { ...api, user_id: "mallory" };
  await assert.rejects(client.history({ atom_id, ...other }), NotFoundError);
  await assert.rejects(
    client.correct({ target_atom: atom_id, action: "negate", reason: "x", ...other }),
    (err) => err instanceof NotFoundError && err.code === "not_found" && err.status === 404,
  );
  const done = await client.correct({
    target_atom: atom_id,
    action: "confirm_necessary",
    reason: "CI enforces it",
    ...api,
  });
  assert.equal(done.epistemic, "necessary");
});

test("the README's TypeScript quickstart runs as written", () => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const block = readme.split("### TypeScript")[1].split("```ts\n")[1].split("```")[0];
  const example = readFileSync(new URL("../examples/quickstart.ts", import.meta.url), "utf8");
  const calls = block.split("\n").filter((line) => line && !line.startsWith("const client ="));
  for (const line of calls) assert.ok(example.includes(line), `not in the example: ${line}`);

  const { lines, shown } = runExample("quickstart", service.url, service.keys.quickstart);
  assert.equal(lines[0], "项目用 PostgreSQL 16 做主数据库，不用 MongoDB");
  assert.equal(lines[1], `[ '${shown.ids.pg16}' ]`);
  assert.equal(lines[2], "我最爱的编程语言是 Java");
});
