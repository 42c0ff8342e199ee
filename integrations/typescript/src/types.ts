/**
 * Names for the request and result types of every operation, taken from the generated
 * `schema.ts` (the REST service's OpenAPI document): nothing here is written by hand,
 * so a change to the service's schemas reaches these types with `npm run generate`.
 */
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

/** Where a memory belongs (`user_id`, `app_id`, `repository`, ...); the API key picks the tenant. */
export type ScopeFields = Schemas["ScopeFields"];

export type MemorizeRequest = Schemas["MemorizeRequest"];
export type MemorizeResult = Schemas["MemorizeResult"];
export type RecallRequest = Schemas["RecallRequest"];
export type RecallResult = Schemas["RecallResult"];
export type RecalledAtom = Schemas["RecalledAtom"];
export type CorrectRequest = Schemas["CorrectRequest"];
export type CorrectResult = Schemas["CorrectResult"];
export type GovernRequest = Schemas["GovernRequest"];
export type GovernResult = Schemas["GovernResult"];
export type HandoffRequest = Schemas["HandoffRequest"];
export type HandoffResult = Schemas["HandoffResult"];
export type SessionContext = Schemas["SessionContext"];
/** `history`'s argument: the atom's id and the caller's scope. */
export type HistoryRequest = { atom_id: string } & Query<"/v1/hmg/history/{atom_id}", "get">;
export type HistoryResult = Schemas["HistoryResult"];
export type HistoryStep = Schemas["HistoryStep"];
export type Atom = Schemas["Atom"];
export type StatsRequest = Query<"/v1/hmg/stats", "get">;
export type Stats = Schemas["Stats"];
export type DigestRequest = Schemas["DigestRequest"];
export type DigestResult = Schemas["DigestResult"];

export type AddRequest = Schemas["AddRequest"];
export type ChatMessage = Schemas["ChatMessage"];
export type WriteResult = Schemas["WriteResult"];
export type Decision = Schemas["Decision"];
export type SearchRequest = Schemas["SearchRequest"];
export type SearchResult = Schemas["SearchResult"];
export type MemoryGroups = Schemas["MemoryGroups"];
export type MemoryItem = Schemas["MemoryItem"];
export type SearchConversationRequest = Schemas["SearchConversationRequest"];
export type ConversationRequest = Schemas["ConversationRequest"];
export type ConversationResult = Schemas["ConversationResult"];
export type ConversationTurn = Schemas["ConversationTurn"];
/** `get`'s and `delete`'s argument: the memory's id, and its user if the call names one. */
export type MemoryRef = { memory_id: string } & Query<"/v1/memories/{memory_id}", "get">;
export type UpdateRequest = { memory_id: string } & Schemas["UpdateRequest"];
export type UpdateResult = Schemas["UpdateResult"];
export type DeleteResult = Schemas["DeleteResult"];
export type ListRequest = Query<"/v1/memories/", "get">;
export type ForgetUserRequest = { user_id: string } & Query<"/v1/users/{user_id}", "delete">;
export type ForgetResult = Schemas["ForgetResult"];
export type Health = Schemas["Health"];
