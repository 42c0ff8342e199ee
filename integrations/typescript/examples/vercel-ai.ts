// The Vercel AI SDK: the user's memories go into the system prompt of `generateText`,
// and the conversation is added to memhub at the end. The model is the SDK's offline
// MockLanguageModelV3 (`ai/test`); with a real provider only `model` changes.
//
//   MEMHUB_URL=http://127.0.0.1:8000 MEMHUB_API_KEY=mh_... node dist/vercel-ai.js
import { MemoryClient } from "@memhub/client";
import { generateText, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const client = new MemoryClient({
  baseUrl: process.env.MEMHUB_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.MEMHUB_API_KEY,
});
const user_id = "ai-user";
await client.add({ content: "我的项目部署在 AWS 东京区域", user_id });
await client.add({ content: "我习惯用 pnpm 管理依赖", user_id });

const model = new MockLanguageModelV3({
  doGenerate: {
    content: [{ type: "text", text: "在东京区域用 pnpm install 后再部署即可。" }],
    finishReason: { unified: "stop", raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    },
    warnings: [],
  },
});

const messages: ModelMessage[] = [{ role: "user", content: "帮我写一下部署步骤" }];
const query = "部署 依赖管理";
const { memories } = await client.search({ query, user_id, limit: 5 });
const known = [...memories.profile, ...memories.proactive, ...memories.normal]
  .map((m) => `- ${m.content}`)
  .join("\n");

const { text } = await generateText({
  model,
  system: `You are a helpful assistant. What you know about the user:\n${known}`,
  messages,
});

const sent = model.doGenerateCalls[0]!.prompt.find((m) => m.role === "system");
console.log(`system ${JSON.stringify(sent?.content)}`);
console.log(`answer ${JSON.stringify(text)}`);

// The conversation goes into memory at the end.
const written = await client.add({
  messages: [
    { role: "user", content: "帮我写一下部署步骤" },
    { role: "assistant", content: text },
  ],
  user_id,
  session_id: "ai-session",
});
console.log(`added ${JSON.stringify(written.raw_ids.length)}`);
