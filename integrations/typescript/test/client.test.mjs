// The client's transport against a scripted HTTP server on 127.0.0.1: the request each
// operation sends, the typed errors, retries on 429/503 only, the timeout and AbortSignal.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, beforeEach, test } from "node:test";
import {
  ConflictError,
  InvalidInputError,
  InvalidTransitionError,
  MemHubError,
  MemoryClient,
  NotFoundError,
  ProviderError,
  RateLimitError,
  RequestTimeoutError,
  UnavailableError,
} from "@memhub/client";

let server;
let url;
let seen; // every request: { method, url, headers, body }
let script; // answers, one per request, in order; the last one repeats

function reply(status, body, headers = {}, delayMs = 0) {
  return { status, body, headers, delayMs };
}

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      const answer = script[Math.min(seen.length - 1, script.length - 1)];
      const send = () => {
        if (res.destroyed) return;
        const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
        res.end(text);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((ok) => server.close(ok)));
beforeEach(() => {
  seen = [];
  script = [reply(200, {})];
});

const client = (options = {}) =>
  new MemoryClient({ baseUrl: `${url}/`, apiKey: "mh_test", retryBaseMs: 1, ...options });
const failure = (code, message = "no") => ({ error: { code, message } });

test("the guide's calls send its snake_case fields as the body, with the key", async () => {
  script = [reply(200, { atom_id: "01A", effect: "applied", epistemic: "actual", polarity: "positive" })];
  const result = await client().correct({
    target_atom: "01A",
    action: "replace",
    reason: "已升级到 PostgreSQL 17",
    new_content: "项目用 PostgreSQL 17 做主数据库",
  });
  assert.equal(result.effect, "applied");
  const [sent] = seen;
  assert.equal(sent.method, "POST");
  assert.equal(sent.url, "/v1/hmg/correct");
  assert.equal(sent.headers.authorization, "Bearer mh_test");
  assert.equal(sent.headers["content-type"], "application/json");
  assert.deepEqual(JSON.parse(sent.body), {
    target_atom: "01A",
    action: "replace",
    reason: "已升级到 PostgreSQL 17",
    new_content: "项目用 PostgreSQL 17 做主数据库",
  });
});

test("ids go in the path (escaped), scope and user in the query", async () => {
  const c = client();
  await c.history({ atom_id: "01A/..", repository: "acme/web", branch: "main" });
  await c.get({ memory_id: "01B", user_id: "alice" });
  await c.update({ memory_id: "01B", content: "new", user_id: "alice" });
  await c.delete({ memory_id: "01B" });
  await c.list({ user_id: "alice", app_ids: ["crm", "web"] });
  await c.stats();
  assert.deepEqual(
    seen.map((r) => `${r.method} ${r.url}`),
    [
      "GET /v1/hmg/history/01A%2F..?repository=acme%2Fweb&branch=main",
      "GET /v1/memories/01B?user_id=alice",
      "PUT /v1/memories/01B",
      "DELETE /v1/memories/01B",
      "GET /v1/memories/?user_id=alice&app_ids=crm&app_ids=web",
      "GET /v1/hmg/stats",
    ],
  );
  assert.deepEqual(JSON.parse(seen[2].body), { content: "new", user_id: "alice" });
  assert.equal(seen[0].body, "");
});

test("the service's error code picks the error class", async () => {
  const cases = [
    [404, failure("not_found", "no memory with id 01A"), NotFoundError, "not_found"],
    [409, failure("invalid_transition"), InvalidTransitionError, "invalid_transition"],
    [409, failure("conflict"), ConflictError, "conflict"],
    [502, failure("provider_error"), ProviderError, "provider_error"],
    [500, "<html>oops</html>", MemHubError, "http_500"],
  ];
  for (const [status, body, Kind, code] of cases) {
    script = [reply(status, body)];
    seen = [];
    await assert.rejects(client().recall({ query: "q" }), (err) => {
      assert.ok(err instanceof Kind && err instanceof MemHubError, `${status} ${code}`);
      assert.equal(err.code, code);
      assert.equal(err.status, status);
      assert.equal(err.name, Kind.name);
      return true;
    });
    assert.equal(seen.length, 1, `${code} must not be retried`);
  }
  script = [reply(404, failure("not_found", "no memory with id 01A"))];
  await assert.rejects(client().get({ memory_id: "01A" }), { message: "no memory with id 01A" });
  const details = [{ loc: ["body", "query"], msg: "Field required" }];
  script = [reply(422, { error: { code: "invalid_input", message: "bad", details } })];
  await assert.rejects(client().recall({ query: "" }), (err) => {
    assert.ok(err instanceof InvalidInputError);
    assert.deepEqual(err.details, details);
    return true;
  });
});

test("429 and 503 are retried with backoff, then succeed", async () => {
  script = [
    reply(503, failure("store_locked")),
    reply(429, failure("rate_limited"), { "Retry-After": "0" }),
    reply(200, { atoms: [] }),
  ];
  assert.deepEqual(await client().recall({ query: "q" }), { atoms: [] });
  assert.equal(seen.length, 3);
  assert.deepEqual(
    seen.map((r) => r.body),
    Array(3).fill(JSON.stringify({ query: "q" })),
  );
});

test("after maxRetries the 503 or 429 is thrown as its class", async () => {
  script = [reply(503, failure("unavailable"))];
  await assert.rejects(client({ maxRetries: 2 }).stats(), UnavailableError);
  assert.equal(seen.length, 3);
  seen = [];
  script = [reply(429, {})];
  await assert.rejects(client({ maxRetries: 0 }).stats(), RateLimitError);
  assert.equal(seen.length, 1);
});

test("a call that takes longer than timeoutMs fails with RequestTimeoutError", async () => {
  script = [reply(200, { atoms: [] }, {}, 2_000)];
  const started = Date.now();
  await assert.rejects(client({ timeoutMs: 100 }).recall({ query: "q" }), (err) => {
    assert.ok(err instanceof RequestTimeoutError);
    assert.equal(err.code, "timeout");
    return true;
  });
  assert.ok(Date.now() - started < 1_500);
  // a per-call timeout overrides the client's
  await assert.rejects(client().recall({ query: "q" }, { timeoutMs: 50 }), RequestTimeoutError);
});

test("the timeout also bounds the waits between retries", async () => {
  script = [reply(503, {}, { "Retry-After": "5" })];
  await assert.rejects(client({ timeoutMs: 200 }).stats(), RequestTimeoutError);
  assert.equal(seen.length, 1);
});

test("an AbortSignal cancels the call with its reason", async () => {
  script = [reply(200, {}, {}, 2_000)];
  const controller = new AbortController();
  const call = client().memorize({ content: "x" }, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("user left")), 50);
  await assert.rejects(call, { message: "user left" });
  await assert.rejects(
    client().stats({}, { signal: AbortSignal.abort() }),
    (err) => err.name === "AbortError",
  );
});

test("an unreachable service is a NetworkError", async () => {
  const gone = new MemoryClient({ baseUrl: "http://127.0.0.1:9", maxRetries: 0 });
  await assert.rejects(gone.stats(), { name: "NetworkError", code: "network" });
});

test("the client needs a baseUrl", () => {
  assert.throws(() => new MemoryClient({}), TypeError);
});
