/**
 * `@memhub/client`: long-term memory for AI agents, from TypeScript, over memhub's
 * REST service (`memhub serve-api`).
 */
export { type ClientOptions, MemoryClient } from "./client.js";
export * from "./errors.js";
export type { CallOptions } from "./http.js";
export type * from "./types.js";
export type { components, operations, paths } from "./schema.js";
