// The MemHub operations (a user's memory): add a statement and a conversation, search,
// searchConversation, get, list, update, delete, and a typed error.
//
//   MEMHUB_URL=http://127.0.0.1:8000 MEMHUB_API_KEY=mh_... node dist/memhub.js
import { MemoryClient, NotFoundError } from "@memhub/client";

const client = new MemoryClient({
  baseUrl: process.env.MEMHUB_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.MEMHUB_API_KEY,
});

function show(label: string, value: unknown): void {
  console.log(`${label} ${JSON.stringify(value)}`);
}

const user_id = "alice";
const written = await client.add({ content: "我最爱的编程语言是 Java", user_id });
show(
  "add.events",
  written.decisions.map((d) => d.action),
);
await client.add({
  messages: [
    { role: "user", content: "我住在上海，平时喝绿茶" },
    { role: "assistant", content: "好的，记住了。" },
  ],
  user_id,
  session_id: "s1",
});

const found = await client.search({ query: "编程语言偏好", user_id });
const java = [...found.memories.profile, ...found.memories.normal].find((m) =>
  m.content.includes("Java"),
)!;
show("search.java", java.content);

const turns = await client.searchConversation({ query: "绿茶", user_id });
show("searchConversation.first", turns.turns[0]?.content);

show("get.content", (await client.get({ memory_id: java.id, user_id })).content);

const updated = await client.update({
  memory_id: java.id,
  content: "我最爱的编程语言是 Rust",
  user_id,
});
show("update.replaces", updated.replaces === java.id);
show("get.updated", (await client.get({ memory_id: updated.id, user_id })).content);

show("list.count", (await client.list({ user_id })).length);
await client.delete({ memory_id: updated.id, user_id });
show(
  "list.after_delete",
  (await client.list({ user_id })).some((m) => m.id === updated.id),
);

// Another user's memory answers exactly like a missing id.
try {
  await client.get({ memory_id: java.id, user_id: "mallory" });
} catch (err) {
  if (!(err instanceof NotFoundError)) throw err;
  show("error", { class: err.name, code: err.code, status: err.status });
}
