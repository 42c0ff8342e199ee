// The TypeScript client's overhead over a bare `fetch`, for `search`, in one run.
//
//   node bench/ts_client_overhead.mjs [--rounds 300]     (after `make test-ts` built the client)
//
// Starts `memhub serve-api` on a free port with a temp store, adds a few memories, then
// sends the same search body alternately with a bare `fetch` (body built, JSON parsed) and
// with `MemoryClient.search`, so both see the same server, cache and machine load.
// Prints both p50s and their ratio (target <= 1.2x).
import { performance } from "node:perf_hooks";
import { MemoryClient } from "../integrations/typescript/dist/index.js";
import { startService } from "../integrations/typescript/test/service.mjs";

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 300;
const TARGET = 1.2;

const service = await startService(["bench"]);
try {
  const key = service.keys.bench;
  const client = new MemoryClient({ baseUrl: service.url, apiKey: key });
  const user_id = "bench-user";
  for (const content of [
    "我最爱的编程语言是 Java",
    "我住在上海",
    "我每天早上喝一杯绿茶",
    "我们项目用 PostgreSQL 17 做主数据库",
    "我周末喜欢去爬山",
  ]) {
    await client.add({ content, user_id });
  }
  const body = { query: "编程语言偏好", user_id };

  async function bare() {
    const response = await fetch(`${service.url}/v1/memories/search`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  }
  const viaClient = () => client.search(body);

  const times = { fetch: [], client: [] };
  for (let i = 0; i < 20; i++) await Promise.all([bare(), viaClient()]); // warm up
  for (let i = 0; i < rounds; i++) {
    // alternate which goes first, so neither always meets a warmer server
    const order = i % 2 ? [["fetch", bare], ["client", viaClient]] : [["client", viaClient], ["fetch", bare]];
    for (const [name, call] of order) {
      const start = performance.now();
      await call();
      times[name].push(performance.now() - start);
    }
  }
  const p50 = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bareP50 = p50(times.fetch);
  const clientP50 = p50(times.client);
  const ratio = clientP50 / bareP50;
  console.log(`TypeScript client overhead, search, ${rounds} rounds each, same run`);
  console.log(`  bare fetch     p50 ${bareP50.toFixed(2)} ms`);
  console.log(`  MemoryClient   p50 ${clientP50.toFixed(2)} ms`);
  console.log(
    `  ratio          ${ratio.toFixed(3)}x   (target <= ${TARGET}x: ${ratio <= TARGET ? "PASS" : "MISS"})`,
  );
} finally {
  await service.stop();
}
