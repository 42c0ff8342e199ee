/**
 * The service's errors as classes. Every failure of the REST service answers
 * `{"error": {"code", "message"}}`; `code` is the Python SDK's `MemHubError.code`
 * (`not_found`, `invalid_input`, `invalid_transition`, ...) or an HTTP-level code
 * (`unauthorized`, `payload_too_large`, ...). The client throws the class of that code,
 * so `catch (e) { if (e instanceof NotFoundError) ... }` works as it does in Python.
 */

/** One problem of a request that did not match the schema (`details` of a 422). */
export interface ErrorItem {
  loc: (string | number)[];
  msg: string;
}

/** Base class of every error the client throws on purpose. */
export class MemHubError extends Error {
  /** The service's error code, e.g. `"not_found"`; client-side: `"timeout"`, `"network"`. */
  readonly code: string;
  /** The HTTP status, or `0` when no answer came (timeout, network). */
  readonly status: number;
  /** What did not match the schema, for `invalid_input` from a 422. */
  readonly details?: ErrorItem[];

  constructor(
    message: string,
    options: { code: string; status?: number; details?: ErrorItem[]; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status ?? 0;
    if (options.details) this.details = options.details;
  }
}

/** 400/422: the request was refused as it was; nothing was changed. */
export class InvalidInputError extends MemHubError {}
/** 404: no such memory for this tenant (another user's memory answers the same). */
export class NotFoundError extends MemHubError {}
/** 409: the action does not apply in the memory's state (e.g. `confirm_actual` on `necessary`). */
export class InvalidTransitionError extends MemHubError {}
/** 409: a concurrent change won; the call may be retried. */
export class ConflictError extends MemHubError {}
/** 401: no API key, or one the service does not know. */
export class UnauthorizedError extends MemHubError {}
/** 403: the key may not do this (e.g. purge needs an operator's key). */
export class ForbiddenError extends MemHubError {}
/** 413: the body, or the messages of one add, is too large; nothing was changed. */
export class PayloadTooLargeError extends MemHubError {}
/** 429: too many requests (retried with backoff before it is thrown). */
export class RateLimitError extends MemHubError {}
/** 503: the store is unavailable (retried with backoff before it is thrown). */
export class UnavailableError extends MemHubError {}
/** 502: an LLM or embedding provider behind the service failed. */
export class ProviderError extends MemHubError {}
/** No answer within the call's timeout (`code: "timeout"`), or the service's 408. */
export class RequestTimeoutError extends MemHubError {}
/** The service could not be reached (`code: "network"`). */
export class NetworkError extends MemHubError {}

const BY_CODE: Record<string, typeof MemHubError> = {
  invalid_input: InvalidInputError,
  not_found: NotFoundError,
  invalid_transition: InvalidTransitionError,
  conflict: ConflictError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  payload_too_large: PayloadTooLargeError,
  rate_limited: RateLimitError,
  store_locked: UnavailableError,
  unavailable: UnavailableError,
  provider_error: ProviderError,
  request_timeout: RequestTimeoutError,
};

const BY_STATUS: Record<number, typeof MemHubError> = {
  400: InvalidInputError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: InvalidInputError,
  429: RateLimitError,
  502: ProviderError,
  503: UnavailableError,
};

/** The error for a failed answer: its body's code picks the class, else its status. */
export function errorFrom(status: number, body: unknown, fallback: string): MemHubError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } })
    ?.error;
  const code = typeof error?.code === "string" ? error.code : `http_${status}`;
  const message = typeof error?.message === "string" ? error.message : fallback;
  const details = Array.isArray(error?.details) ? (error.details as ErrorItem[]) : undefined;
  const Kind = BY_CODE[code] ?? BY_STATUS[status] ?? MemHubError;
  return new Kind(message, { code, status, ...(details ? { details } : {}) });
}
