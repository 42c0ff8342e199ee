/**
 * One request to the service: `fetch` with a timeout, the caller's `AbortSignal`,
 * and retries with exponential backoff on 429 and 503 only. Every other answer is
 * final: a 409 conflict or a 502 may have changed something, and retrying a write
 * that did is the caller's decision, not the transport's.
 */
import { MemHubError, NetworkError, RequestTimeoutError, errorFrom } from "./errors.js";

/** Per-call options, accepted by every method of `MemoryClient` as its last argument. */
export interface CallOptions {
  /** Aborts the call (and its retries); the abort's reason is thrown as it is. */
  signal?: AbortSignal;
  /** Milliseconds for the whole call, retries included; default: the client's `timeoutMs`. */
  timeoutMs?: number;
}

/** How the transport behaves; `MemoryClient`'s options with their defaults applied. */
export interface Transport {
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  fetch: typeof fetch;
}

const RETRIED = new Set([429, 503]);
const MAX_BACKOFF_MS = 8_000;

/** A path with a query string of the given values (`undefined` and `null` left out). */
export function withQuery(path: string, query?: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function backoff(attempt: number, base: number, retryAfter: string | null): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_BACKOFF_MS);
  const full = Math.min(base * 2 ** attempt, MAX_BACKOFF_MS);
  return full / 2 + Math.random() * (full / 2); // jitter: clients that failed together spread out
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", aborted, { once: true });
  });
}

/** Sends one request and answers its JSON body, or throws the service's error. */
export async function request<T>(
  transport: Transport,
  method: string,
  path: string,
  body: unknown,
  options: CallOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs;
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new RequestTimeoutError(`no answer within ${timeoutMs} ms`, { code: "timeout" })),
    timeoutMs,
  );
  const signal = options.signal ? anyOf(options.signal, timeout.signal) : timeout.signal;
  const init: RequestInit = {
    method,
    headers:
      body === undefined
        ? transport.headers
        : { ...transport.headers, "Content-Type": "application/json" },
    signal,
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  try {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await transport.fetch(transport.baseUrl + path, init);
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        throw new NetworkError(`could not reach ${transport.baseUrl}: ${String(err)}`, {
          code: "network",
          cause: err,
        });
      }
      if (response.ok) return (await response.json()) as T;
      if (RETRIED.has(response.status) && attempt < transport.maxRetries) {
        await response.body?.cancel();
        const wait = backoff(attempt, transport.retryBaseMs, response.headers.get("retry-after"));
        await sleep(wait, signal);
        continue;
      }
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw errorFrom(response.status, parsed, `${method} ${path}: HTTP ${response.status}`);
    }
  } catch (err) {
    if (signal.aborted && !(err instanceof MemHubError)) throw signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** `AbortSignal.any` where the runtime has it (Node 20+, browsers); a linked controller else. */
function anyOf(a: AbortSignal, b: AbortSignal): AbortSignal {
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (any) return any([a, b]);
  const linked = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) {
      linked.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => linked.abort(signal.reason), { once: true });
  }
  return linked.signal;
}
