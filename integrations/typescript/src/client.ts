/**
 * `MemoryClient`: the memhub REST service from TypeScript, the HMG guide's operations
 * exactly as the guide writes them (`await client.correct({ target_atom, action, reason,
 * new_content })`) and the MemHub operations beside them. `fetch` only: Node 18+, Deno,
 * Bun, browsers and edge runtimes.
 */
import { type CallOptions, type Transport, request, withQuery } from "./http.js";
import type * as T from "./types.js";

/** How to reach the service. */
export interface ClientOptions {
  /** The service's address, e.g. `"http://127.0.0.1:8000"` (`memhub serve-api`). */
  baseUrl: string;
  /** A key from `memhub keys create`; it picks the tenant. */
  apiKey?: string;
  /** Milliseconds for each call, retries included (default 30 000). */
  timeoutMs?: number;
  /** Retries of a 429 or 503 answer, with exponential backoff (default 3). */
  maxRetries?: number;
  /** The first backoff in milliseconds; it doubles per retry (default 250). */
  retryBaseMs?: number;
  /** Another `fetch` (a test double, or one with a proxy agent); default: the global one. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

const enc = encodeURIComponent;

/**
 * A client of one memhub service.
 *
 * @example
 * ```ts
 * const client = new MemoryClient({ baseUrl: "http://127.0.0.1:8000", apiKey });
 * const result = await client.memorize({ content: "项目用 PostgreSQL 16 做主数据库" });
 * console.log(result.effect); // "applied"
 * ```
 */
export class MemoryClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    if (!options?.baseUrl) throw new TypeError("MemoryClient needs { baseUrl }");
    const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    this.#transport = {
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 250,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    };
  }

  #call<R>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<R> {
    return request<R>(this.#transport, method, path, body, options);
  }

  // -- HMG operations (the guide's names and fields) -----------------------------------

  /** Store one fact; secrets are redacted first, a duplicate in the scope is a `no_op`. */
  memorize(args: T.MemorizeRequest, options?: CallOptions): Promise<T.MemorizeResult> {
    return this.#call("POST", "/v1/hmg/memorize", args, options);
  }

  /** Hybrid search over the current memories of the scope, best first. */
  recall(args: T.RecallRequest, options?: CallOptions): Promise<T.RecallResult> {
    return this.#call("POST", "/v1/hmg/recall", args, options);
  }

  /** Change what is believed: `replace` (with `new_content`), `negate`, `confirm_actual`,
   * `confirm_necessary`, `demote`. */
  correct(args: T.CorrectRequest, options?: CallOptions): Promise<T.CorrectResult> {
    return this.#call("POST", "/v1/hmg/correct", args, options);
  }

  /** Change whether it may exist: `quarantine`/`release`, `seal`, `tombstone`,
   * `derive_lesson` (with `lesson_content`). */
  govern(args: T.GovernRequest, options?: CallOptions): Promise<T.GovernResult> {
    return this.#call("POST", "/v1/hmg/govern", args, options);
  }

  /** Leave a summary for the next session (shown first by `sessionContext`). */
  handoff(args: T.HandoffRequest, options?: CallOptions): Promise<T.HandoffResult> {
    return this.#call("POST", "/v1/hmg/handoff", args, options);
  }

  /** The session-start context: the latest handoff first, then `necessary` constraints. */
  sessionContext(args: T.ScopeFields = {}, options?: CallOptions): Promise<T.SessionContext> {
    return this.#call("POST", "/v1/hmg/context", args, options);
  }

  /** The audit trail of one memory: current state, relations, every step with its reason. */
  history(args: T.HistoryRequest, options?: CallOptions): Promise<T.HistoryResult> {
    const { atom_id, ...scope } = args;
    return this.#call("GET", withQuery(`/v1/hmg/history/${enc(atom_id)}`, scope), undefined, options);
  }

  /** What the store holds: atoms, edges, per-index counts, snapshot version. */
  stats(args: T.StatsRequest = {}, options?: CallOptions): Promise<T.Stats> {
    return this.#call("GET", withQuery("/v1/hmg/stats", args), undefined, options);
  }

  /** Dual mode: derive L3 patterns for the scopes written since the last digest. */
  digest(args: T.DigestRequest = {}, options?: CallOptions): Promise<T.DigestResult> {
    return this.#call("POST", "/v1/hmg/digest", args, options);
  }

  // -- MemHub operations ----------------------------------------------------------------

  /** Add a statement (`content`) or a conversation (`messages`) to a user's memory. */
  add(args: T.AddRequest, options?: CallOptions): Promise<T.WriteResult> {
    return this.#call("POST", "/v1/memories/", args, options);
  }

  /** Search a user's current memories, grouped (profile, proactive, normal, ...). */
  search(args: T.SearchRequest, options?: CallOptions): Promise<T.SearchResult> {
    return this.#call("POST", "/v1/memories/search", args, options);
  }

  /** Search the raw conversation turns (governed text is never returned). */
  searchConversation(
    args: T.SearchConversationRequest,
    options?: CallOptions,
  ): Promise<T.ConversationResult> {
    return this.#call("POST", "/v1/memories/search-conversation", args, options);
  }

  /** One session's raw turns, in the order they were said. */
  conversation(args: T.ConversationRequest, options?: CallOptions): Promise<T.ConversationResult> {
    return this.#call("POST", "/v1/memories/conversation", args, options);
  }

  /** One memory by its id (from any checkout; another user's answers `NotFoundError`). */
  get(args: T.MemoryRef, options?: CallOptions): Promise<T.MemoryItem> {
    const { memory_id, ...query } = args;
    return this.#call("GET", withQuery(`/v1/memories/${enc(memory_id)}`, query), undefined, options);
  }

  /** A user's memories, newest first; `include_history` adds replaced and deleted versions. */
  list(args: T.ListRequest, options?: CallOptions): Promise<T.MemoryItem[]> {
    return this.#call("GET", withQuery("/v1/memories/", args), undefined, options);
  }

  /** Write a new version of a memory; the answer carries the new id. */
  update(args: T.UpdateRequest, options?: CallOptions): Promise<T.UpdateResult> {
    const { memory_id, ...body } = args;
    return this.#call("PUT", `/v1/memories/${enc(memory_id)}`, body, options);
  }

  /** Archive a memory's current version (gone from search, kept for history). */
  delete(args: T.MemoryRef, options?: CallOptions): Promise<T.DeleteResult> {
    const { memory_id, ...query } = args;
    return this.#call(
      "DELETE",
      withQuery(`/v1/memories/${enc(memory_id)}`, query),
      undefined,
      options,
    );
  }

  /** Erase everything about one user in the key's tenant (the right to erasure). */
  forgetUser(args: T.ForgetUserRequest, options?: CallOptions): Promise<T.ForgetResult> {
    const { user_id, ...query } = args;
    return this.#call("DELETE", withQuery(`/v1/users/${enc(user_id)}`, query), undefined, options);
  }

  /** The service's status (no key needed). */
  health(options?: CallOptions): Promise<T.Health> {
    return this.#call("GET", "/health", undefined, options);
  }
}
