// LangChain.js: memhub as a retriever in a chain. The user's memories are retrieved for
// the question, put into the prompt, answered by a model (here LangChain's offline
// FakeListChatModel), and the exchange is added to memhub at the end.
//
//   MEMHUB_URL=http://127.0.0.1:8000 MEMHUB_API_KEY=mh_... node dist/langchain.js
import { MemoryClient } from "@memhub/client";
import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import { Document } from "@langchain/core/documents";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { RunnablePassthrough, RunnableSequence } from "@langchain/core/runnables";

/** A user's memhub memories for a query, as LangChain documents. */
class MemHubRetriever extends BaseRetriever {
  lc_namespace = ["memhub", "retrievers"];

  constructor(
    private readonly client: MemoryClient,
    private readonly user_id: string,
    fields?: BaseRetrieverInput,
  ) {
    super(fields);
  }

  async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document[]> {
    const { memories } = await this.client.search({ query, user_id: this.user_id, limit: 5 });
    return [...memories.profile, ...memories.proactive, ...memories.normal].map(
      (m) => new Document({ pageContent: m.content, metadata: { id: m.id, layer: m.layer } }),
    );
  }
}

const client = new MemoryClient({
  baseUrl: process.env.MEMHUB_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.MEMHUB_API_KEY,
});
const user_id = "lc-user";
await client.add({ content: "我对花生过敏", user_id });
await client.add({ content: "我最喜欢的菜系是川菜", user_id });

const retriever = new MemHubRetriever(client, user_id);
const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant. What you know about the user:\n{memories}"],
  ["human", "{question}"],
]);
const model = new FakeListChatModel({ responses: ["推荐一道不含花生的川菜：麻婆豆腐。"] });
const chain = RunnableSequence.from([
  {
    memories: retriever.pipe((docs: Document[]) => docs.map((d) => `- ${d.pageContent}`).join("\n")),
    question: new RunnablePassthrough(),
  },
  prompt,
  model,
  new StringOutputParser(),
]);

const question = "晚饭推荐一道菜，注意我的饮食禁忌";
let seen = "";
const answer = await chain.invoke(question, {
  callbacks: [
    {
      handleChatModelStart(_llm, messages) {
        seen = messages[0]!.map((m) => String(m.content)).join("\n");
      },
    },
  ],
});
console.log(`prompt ${JSON.stringify(seen)}`);
console.log(`answer ${JSON.stringify(answer)}`);

// The exchange goes into memory at the end of the turn.
const written = await client.add({
  messages: [
    { role: "user", content: question },
    { role: "assistant", content: answer },
  ],
  user_id,
  session_id: "lc-session",
});
console.log(`added ${JSON.stringify(written.raw_ids.length)}`);
