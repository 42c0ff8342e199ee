// Generated from the memhub REST service's OpenAPI document by scripts/generate.mjs.
// Do not edit: run `npm run generate (in integrations/typescript)`.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health
         * @description Liveness and the per-request limits; needs no key and says nothing about the data.
         */
        get: operations["health_health_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * can the service do its work
         * @description 200 when the store is open, the embedder works, the key file is valid and the server
         *     is not stopping; 503 otherwise, with the same body saying which check failed.
         */
        get: operations["ready_ready_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * every memory version with its audit trail, as JSON Lines
         * @description The header line, then one line per memory (sealed and tombstoned ones without text).
         */
        get: operations["export_v1_export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * session-start context
         * @description The latest handoff first, then the scope's ``necessary`` constraints.
         */
        post: operations["context_v1_hmg_context_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/correct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * change what is believed
         * @description ``replace`` (needs ``new_content``), ``negate``, ``confirm_actual``, ``confirm_necessary``,
         *     ``demote``.
         */
        post: operations["correct_v1_hmg_correct_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/digest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * dual mode: derive L3 patterns once per pending scope
         * @description Processes the tenant's scopes written since the last digest; ``processed`` is
         *     0 in system1.
         */
        post: operations["digest_v1_hmg_digest_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/govern": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * change whether it may exist
         * @description ``quarantine``/``release``, ``seal``, ``tombstone``, ``derive_lesson`` (needs
         *     ``lesson_content``).
         */
        post: operations["govern_v1_hmg_govern_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/handoff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** leave a summary for the next session */
        post: operations["handoff_v1_hmg_handoff_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/history/{atom_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the audit trail of one memory */
        get: operations["history_v1_hmg_history__atom_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/memorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * store one fact
         * @description Secrets are redacted first; a duplicate in the scope is a ``no_op``.
         */
        post: operations["memorize_v1_hmg_memorize_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/purge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * erase governed content from disk (operator key)
         * @description Rewrites the store so sealed and tombstoned content is physically gone (may take a while).
         *
         *     The store is shared by every tenant, so this needs an operator's key (``memhub keys
         *     create --admin``); a tenant's key gets 403. A tenant erases its own users with
         *     ``DELETE /v1/users/{user_id}`` (``forget_user``): their text is gone from every answer
         *     at once, and from the files on disk at the operator's next purge.
         */
        post: operations["purge_v1_hmg_purge_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** hybrid search over current memories */
        post: operations["recall_v1_hmg_recall_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/hmg/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** what the tenant's store holds */
        get: operations["stats_v1_hmg_stats_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * add the memories of an export; safe to repeat
         * @description The body: JSON Lines, optionally starting with the export's header line. Memories
         *     whose id this tenant has are skipped; bad lines are reported (``strict``: nothing applied).
         */
        post: operations["import__v1_import_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * list a user's memories
         * @description Newest first; ``include_history`` adds replaced and deleted versions.
         */
        get: operations["list_memories_v1_memories__get"];
        put?: never;
        /**
         * add a statement or a conversation
         * @description L0 raw records, extracted facts and profile items, reconciled with what is known.
         *
         *     At most ``max_messages_per_add`` user and assistant messages (``/health`` says how
         *     many; 12 by default): a longer conversation gets 413 and nothing is stored. Send it
         *     as several adds with the same ``session_id``.
         */
        post: operations["add_v1_memories__post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * get one memory
         * @description With ``as_of``, the version of the memory that held then.
         */
        get: operations["get_v1_memories__memory_id__get"];
        /**
         * write a new version
         * @description The old version stays in the evolution chain; the answer carries the new id.
         */
        put: operations["update_v1_memories__memory_id__put"];
        post?: never;
        /**
         * archive the current version
         * @description Gone from search, kept for history (``/v1/hmg/govern`` erases content).
         */
        delete: operations["delete_v1_memories__memory_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{memory_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * the audit trail of one memory
         * @description Its current state, relations and every step with its reason: the answer of
         *     ``/v1/hmg/history/{id}``, under the same scope rules, at the path of the memory.
         */
        get: operations["history_v1_memories__memory_id__history_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/conversation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * a session's raw turns
         * @description A session's raw turns (L0) in the order they were said; governed text is never returned.
         */
        post: operations["conversation_v1_memories_conversation_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * search current memories, grouped
         * @description ``profile`` / ``proactive`` / ``normal`` (+ ``procedures``, ``derived`` when asked).
         */
        post: operations["search_v1_memories_search_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/search-conversation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * search the raw turns
         * @description What was actually said (L0); governed text is never returned.
         */
        post: operations["search_conversation_v1_memories_search_conversation_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * erase everything about one user
         * @description Tombstones every memory of the user in the key's tenant (every layer, status and app,
         *     or only ``app_id``'s): the text is gone from every read at once, and from disk after
         *     ``/v1/hmg/purge``. A second call answers ``tombstoned: 0``.
         */
        delete: operations["forget_user_v1_users__user_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AddRequest
         * @description Exactly one of ``content`` (a statement) or ``messages`` (a conversation).
         */
        AddRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /** Branch */
            branch?: string | null;
            /** Content */
            content?: string | null;
            /** Messages */
            messages?: components["schemas"]["ChatMessage"][] | null;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * Occurred At
             * @description when it happened (ISO 8601), if not now
             */
            occurred_at?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** User Id */
            user_id: string;
            /**
             * Workspace Id
             * @description version boundary of coding procedures
             */
            workspace_id?: string | null;
        } & ({
            content: string;
        } | {
            messages: unknown[];
        });
        /**
         * Atom
         * @description A memory as every read returns it. Governed content is never included.
         */
        Atom: {
            /** Atom Id */
            atom_id: string;
            /** Content */
            content: string;
            /** Created At */
            created_at: string;
            /** Epistemic */
            epistemic: ("possible" | "actual" | "necessary") | null;
            /** Exposure State */
            exposure_state: string;
            /** Layer */
            layer: string;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Polarity */
            polarity: string | null;
            /** Scope */
            scope: {
                [key: string]: string;
            };
            /** Source */
            source: string | null;
            /** Status */
            status: string;
            /** Updated At */
            updated_at: string | null;
            /**
             * Valid From
             * @description when it began to hold in the world (ISO 8601): the start of the span its words name ("last month": the month's first day), else when it was said
             */
            valid_from: string | null;
            /**
             * Valid Precision
             * @description instant, day, week, month or year: how wide the span named is
             */
            valid_precision: string | null;
            /**
             * Valid To
             * @description when a newer version or a negation ended it; empty while it holds
             */
            valid_to: string | null;
            /**
             * Version
             * @default 1
             */
            version: number;
        };
        /**
         * ChatMessage
         * @description One OpenAI-style message. System messages are dropped and tool output is never stored.
         */
        ChatMessage: {
            /** Content */
            content?: string | (components["schemas"]["ContentPart"] | string)[] | null;
            /** Created At */
            created_at?: string | number | null;
            /** Id */
            id?: string | number | null;
            /** Name */
            name?: string | null;
            /** Occurred At */
            occurred_at?: string | null;
            /**
             * Role
             * @enum {string}
             */
            role: "system" | "developer" | "user" | "assistant" | "tool" | "function";
            /** Timestamp */
            timestamp?: string | number | null;
            /** Tool Call Id */
            tool_call_id?: string | null;
            /** Tool Calls */
            tool_calls?: {
                [key: string]: unknown;
            }[] | null;
        };
        /**
         * ContentPart
         * @description One part of a message's content: its ``text`` is kept; other parts (images, ...) are not.
         */
        ContentPart: {
            /** Text */
            text?: string | null;
            /** Type */
            type?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** ConversationRequest */
        ConversationRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Ids
             * @description default: [the server's default_app_id]
             */
            app_ids?: string[] | null;
            /**
             * Limit
             * @default 1000
             */
            limit?: number;
            /** Session Id */
            session_id: string;
            /** User Id */
            user_id: string;
        };
        /** ConversationResult */
        ConversationResult: {
            /** Turns */
            turns: components["schemas"]["ConversationTurn"][];
        };
        /** ConversationTurn */
        ConversationTurn: {
            /** Content */
            content: string;
            /** Created At */
            created_at: string;
            /**
             * Id
             * @description the L0 record id
             */
            id: string;
            /** Message Id */
            message_id: string | null;
            /** Occurred At */
            occurred_at: string | null;
            /** Role */
            role: string;
            /**
             * Score
             * @description relevance, for a search; none in a listing
             */
            score: number | null;
            /** Session Id */
            session_id: string | null;
        };
        /** CorrectRequest */
        CorrectRequest: {
            /**
             * Action
             * @enum {string}
             */
            action: "replace" | "negate" | "confirm_actual" | "confirm_necessary" | "demote";
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /**
             * Branch
             * @description '*' widens a read across branches
             */
            branch?: string | null;
            /**
             * New Content
             * @description the new version (replace only)
             */
            new_content?: string | null;
            /** Reason */
            reason: string;
            /**
             * Repository
             * @description '*' widens a read across repositories
             */
            repository?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Target Atom */
            target_atom: string;
            /** User Id */
            user_id?: string | null;
            /** Workspace */
            workspace?: string | null;
        };
        /** CorrectResult */
        CorrectResult: {
            /**
             * Action
             * @enum {string}
             */
            action: "replace" | "negate" | "confirm_actual" | "confirm_necessary" | "demote";
            /** Atom Id */
            atom_id: string;
            /**
             * Effect
             * @enum {string}
             */
            effect: "applied" | "no_op";
            /** Epistemic */
            epistemic: string | null;
            /** New Atom Id */
            new_atom_id: string | null;
            /** Status */
            status: string;
        };
        /**
         * Decision
         * @description What the write judge decided for one extracted candidate.
         */
        Decision: {
            /**
             * Action
             * @enum {string}
             */
            action: "ADD" | "NOOP" | "OVERRIDE" | "SUPPLEMENT" | "INVALID" | "NEED_CONTEXT" | "RAW_ONLY";
            /** Candidate */
            candidate: string;
            /**
             * Kept
             * @description an OVERRIDE of a memory that said more than the new statement changes ("we use Vue and Go" by "we switched from Vue to React"): the memories the rest of it was kept as
             */
            kept: string[];
            /**
             * Memory Id
             * @description the memory written for this candidate, if any
             */
            memory_id: string | null;
            /**
             * Note
             * @description why the decision needs a look, in a sentence
             */
            note: string | null;
            /**
             * Suggested Correction
             * @description a NOOP restating a memory at another epistemic level (hearsay of a fact, a confirmation of a guess) is a correction candidate: the correct action to apply
             */
            suggested_correction: string | null;
            /** Targets */
            targets: string[];
            /** Update Type */
            update_type: string | null;
        };
        /** DeleteResult */
        DeleteResult: {
            /**
             * Deleted
             * @default true
             */
            deleted: boolean;
            /** Id */
            id: string;
        };
        /** DigestRequest */
        DigestRequest: {
            /**
             * Mode
             * @description dual derives L3 patterns; default: the server's configured mode
             */
            mode?: ("system1" | "dual") | null;
        };
        /** DigestResult */
        DigestResult: {
            /** Derived Ids */
            derived_ids: string[];
            /**
             * Processed
             * @description pending scopes processed
             */
            processed: number;
        };
        /** ErrorDetail */
        ErrorDetail: {
            /** Code */
            code: string;
            /** Details */
            details?: components["schemas"]["ErrorItem"][] | null;
            /** Message */
            message: string;
        };
        /** ErrorItem */
        ErrorItem: {
            /** Loc */
            loc: (string | number)[];
            /** Msg */
            msg: string;
        };
        /** ErrorResponse */
        ErrorResponse: {
            error: components["schemas"]["ErrorDetail"];
        };
        /**
         * ForgetResult
         * @description What ``forget_user`` erased: the text is gone from every read at once, and from
         *     the files on disk after ``purge``.
         */
        ForgetResult: {
            /**
             * Threads
             * @description the user's saved conversation threads deleted by this call (every record an adapter keeps of each: saved states, pending writes); 0 when none was left
             * @default 0
             */
            threads: number;
            /**
             * Tombstoned
             * @description the user's records erased by this call (memories tombstoned, adapters' store items deleted); 0 when nothing was left
             */
            tombstoned: number;
            /** User Id */
            user_id: string;
        };
        /** GovernRequest */
        GovernRequest: {
            /**
             * Action
             * @enum {string}
             */
            action: "quarantine" | "release" | "seal" | "tombstone" | "derive_lesson";
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /**
             * Branch
             * @description '*' widens a read across branches
             */
            branch?: string | null;
            /**
             * Lesson Content
             * @description the lesson to keep (derive_lesson only)
             */
            lesson_content?: string | null;
            /** Reason */
            reason: string;
            /**
             * Repository
             * @description '*' widens a read across repositories
             */
            repository?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Target Atom */
            target_atom: string;
            /** User Id */
            user_id?: string | null;
            /** Workspace */
            workspace?: string | null;
        };
        /** GovernResult */
        GovernResult: {
            /**
             * Action
             * @enum {string}
             */
            action: "quarantine" | "release" | "seal" | "tombstone" | "derive_lesson";
            /** Atom Id */
            atom_id: string;
            /**
             * Cascaded
             * @description other memories given the same exposure: the raw turns it was extracted from and what was extracted or derived from it or them (seal, tombstone and derive_lesson only)
             */
            cascaded: string[];
            /**
             * Effect
             * @enum {string}
             */
            effect: "applied" | "no_op";
            /** Exposure State */
            exposure_state: string;
            /** Lesson Atom Id */
            lesson_atom_id: string | null;
        };
        /** HandoffRequest */
        HandoffRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /**
             * Branch
             * @description '*' widens a read across branches
             */
            branch?: string | null;
            /**
             * Repository
             * @description '*' widens a read across repositories
             */
            repository?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** Summary */
            summary: string;
            /** User Id */
            user_id?: string | null;
            /** Workspace */
            workspace?: string | null;
        };
        /** HandoffResult */
        HandoffResult: {
            /** Atom Id */
            atom_id: string;
        };
        /** Health */
        Health: {
            /**
             * Max Messages Per Add
             * @description most user and assistant messages one add takes (system and tool messages do not count); send a longer conversation as several adds with the same session_id
             */
            max_messages_per_add: number;
            /**
             * Status
             * @default ok
             * @constant
             */
            status: "ok";
            /** Version */
            version: string;
        };
        /** HistoryResult */
        HistoryResult: {
            /** Atom Id */
            atom_id: string;
            current: components["schemas"]["Atom"];
            /** Epistemic History */
            epistemic_history: components["schemas"]["HistoryStep"][];
            /** Exposure History */
            exposure_history: components["schemas"]["HistoryStep"][];
            relations: components["schemas"]["Relations"];
            /** Status History */
            status_history: components["schemas"]["HistoryStep"][];
        };
        /** HistoryStep */
        HistoryStep: {
            /** Action */
            action: string;
            /** At */
            at: string;
            /** By */
            by: string;
            /** From */
            from: string | null;
            /** Reason */
            reason: string | null;
            /** To */
            to: string | null;
        };
        /**
         * ImportResult
         * @description What ``import_`` did; running the same import again reports everything as ``skipped``.
         */
        ImportResult: {
            /**
             * Embedded
             * @description memories whose vectors were made here (no reusable vectors in the file)
             * @default 0
             */
            embedded: number;
            /**
             * Errors
             * @description the first invalid lines, with their line numbers
             */
            errors: string[];
            /**
             * Imported
             * @description memories added
             */
            imported: number;
            /**
             * Invalid
             * @description lines that were not memory records: reported and not applied
             * @default 0
             */
            invalid: number;
            /** Notes */
            notes: string[];
            /**
             * Skipped
             * @description memories already in the store (same id): left as they are
             */
            skipped: number;
        };
        /** MemorizeRequest */
        MemorizeRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /**
             * Branch
             * @description '*' widens a read across branches
             */
            branch?: string | null;
            /** Content */
            content: string;
            /**
             * Epistemic
             * @description default: inferred from the text
             */
            epistemic?: ("possible" | "actual" | "necessary") | null;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * Polarity
             * @description default: inferred
             */
            polarity?: ("positive" | "negative") | null;
            /**
             * Repository
             * @description '*' widens a read across repositories
             */
            repository?: string | null;
            /** Session Id */
            session_id?: string | null;
            /**
             * Source
             * @default agent
             * @enum {string}
             */
            source?: "user" | "agent" | "system" | "import";
            /** User Id */
            user_id?: string | null;
            /** Workspace */
            workspace?: string | null;
        };
        /** MemorizeResult */
        MemorizeResult: {
            /** Atom Id */
            atom_id: string;
            /** Duplicate Of */
            duplicate_of: string | null;
            /**
             * Effect
             * @enum {string}
             */
            effect: "applied" | "no_op";
            /**
             * Epistemic
             * @enum {string}
             */
            epistemic: "possible" | "actual" | "necessary";
            /**
             * Note
             * @description why the result needs a look, in a sentence
             */
            note: string | null;
            /** Polarity */
            polarity: string;
            /**
             * Redacted
             * @description kinds of secrets removed
             */
            redacted: string[];
            /**
             * Suggested Correction
             * @description a no_op restating the memory at another epistemic level (hearsay of a fact, a confirmation of a guess) is a correction candidate: the correct action to apply
             */
            suggested_correction: string | null;
        };
        /** MemoryGroups */
        MemoryGroups: {
            /** Derived */
            derived: components["schemas"]["MemoryItem"][] | null;
            /** Normal */
            normal: components["schemas"]["MemoryItem"][];
            /** Proactive */
            proactive: components["schemas"]["MemoryItem"][];
            /** Procedures */
            procedures: components["schemas"]["MemoryItem"][] | null;
            /** Profile */
            profile: components["schemas"]["MemoryItem"][];
        };
        /** MemoryItem */
        MemoryItem: {
            /** Agent Id */
            agent_id: string | null;
            /** App Id */
            app_id: string | null;
            /** Content */
            content: string;
            /** Created At */
            created_at: string;
            /**
             * Evolution Chain
             * @description ids of the versions it replaced, newest first
             */
            evolution_chain: string[];
            /** Id */
            id: string;
            /** Layer */
            layer: string;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Occurred At */
            occurred_at: string | null;
            procedure: components["schemas"]["Procedure"] | null;
            /** Score */
            score: number | null;
            /** Session Id */
            session_id: string | null;
            /**
             * Status
             * @default active
             */
            status: string;
            /** Updated At */
            updated_at: string | null;
            /** User Id */
            user_id: string | null;
            /**
             * Valid From
             * @description when it began to hold in the world (ISO 8601): the start of the span its words name ("last month": the month's first day), else when it was said
             */
            valid_from: string | null;
            /**
             * Valid Precision
             * @description instant, day, week, month or year: how wide the span named is
             */
            valid_precision: string | null;
            /**
             * Valid To
             * @description when a newer version or a negation ended it; empty while it holds
             */
            valid_to: string | null;
        };
        /**
         * Procedure
         * @description Reusable engineering experience extracted from a coding session.
         */
        Procedure: {
            /** Boundary Envs */
            boundary_envs: string[];
            /**
             * Boundary Scope
             * @default project
             * @enum {string}
             */
            boundary_scope: "strict" | "project" | "user" | "global";
            /** Branch */
            branch: string | null;
            /** Files */
            files: string[];
            /** Search Keys */
            search_keys: string[];
            /** Solution */
            solution: string;
            /** Task */
            task: string;
            /** Workspace Id */
            workspace_id: string | null;
        };
        /** PurgeResult */
        PurgeResult: {
            /**
             * Purged
             * @default true
             */
            purged: boolean;
        };
        /**
         * Readiness
         * @description Whether the service can do its work, and which check failed if not.
         */
        Readiness: {
            /**
             * Checks
             * @description store (open), embedder (embeds), keys (key file valid), accepting (not stopping)
             */
            checks: {
                [key: string]: boolean;
            };
            /** Ready */
            ready: boolean;
        };
        /** RecalledAtom */
        RecalledAtom: {
            /** Atom Id */
            atom_id: string;
            /** Content */
            content: string;
            /** Created At */
            created_at: string;
            /** Epistemic */
            epistemic: string | null;
            /** Layer */
            layer: string;
            /**
             * Score
             * @description 0..1, higher is better (reciprocal-rank fusion, normalised)
             */
            score: number;
            /** Source */
            source: string | null;
            /** Valid From */
            valid_from: string | null;
            /** Valid Precision */
            valid_precision: string | null;
        };
        /** RecallRequest */
        RecallRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /**
             * As Of
             * @description read as of this ISO 8601 date or date-time: the memories that held then, as they were then (default: now)
             */
            as_of?: string | null;
            /**
             * Branch
             * @description '*' widens a read across branches
             */
            branch?: string | null;
            /**
             * Limit
             * @default 10
             */
            limit?: number;
            /** Query */
            query: string;
            /**
             * Repository
             * @description '*' widens a read across repositories
             */
            repository?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** User Id */
            user_id?: string | null;
            /** Workspace */
            workspace?: string | null;
        };
        /** RecallResult */
        RecallResult: {
            /** Atoms */
            atoms: components["schemas"]["RecalledAtom"][];
        };
        /** Relations */
        Relations: {
            /**
             * Chain
             * @description the whole version chain, oldest first
             */
            chain: string[];
            /** Related Lessons */
            related_lessons: string[];
            /** Superseded By */
            superseded_by: string[];
            /** Supersedes */
            supersedes: string[];
        };
        /**
         * ScopeFields
         * @description Where the memory belongs. The tenant is never a field: the API key decides it.
         */
        ScopeFields: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Id
             * @description default: the server's default_app_id
             */
            app_id?: string | null;
            /**
             * Branch
             * @description '*' widens a read across branches
             */
            branch?: string | null;
            /**
             * Repository
             * @description '*' widens a read across repositories
             */
            repository?: string | null;
            /** Session Id */
            session_id?: string | null;
            /** User Id */
            user_id?: string | null;
            /** Workspace */
            workspace?: string | null;
        };
        /** SearchConversationRequest */
        SearchConversationRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Ids
             * @description default: [the server's default_app_id]
             */
            app_ids?: string[] | null;
            /**
             * As Of
             * @description read as of this ISO 8601 date or date-time: the memories that held then, as they were then (default: now)
             */
            as_of?: string | null;
            /**
             * Limit
             * @default 10
             */
            limit?: number;
            /** Query */
            query: string;
            /**
             * Session Id
             * @description only this session's; default: every session
             */
            session_id?: string | null;
            /** User Id */
            user_id: string;
        };
        /** SearchRequest */
        SearchRequest: {
            /** Agent Id */
            agent_id?: string | null;
            /**
             * App Ids
             * @description default: [the server's default_app_id]
             */
            app_ids?: string[] | null;
            /**
             * As Of
             * @description read as of this ISO 8601 date or date-time: the memories that held then, as they were then (default: now)
             */
            as_of?: string | null;
            /**
             * Derived Context Limit
             * @description default: the server's setting
             */
            derived_context_limit?: number | null;
            /**
             * Filters
             * @description metadata equality; a list matches any of its values
             */
            filters?: {
                [key: string]: string | number | boolean | (string | number | boolean)[];
            } | null;
            /**
             * Limit
             * @default 10
             */
            limit?: number;
            /**
             * Procedure Limit
             * @description 0 = no procedures group
             * @default 0
             */
            procedure_limit?: number;
            /**
             * Procedure Min Score
             * @default 0
             */
            procedure_min_score?: number;
            /** Query */
            query: string;
            /**
             * Session Id
             * @description only this session's; default: every session
             */
            session_id?: string | null;
            /** User Id */
            user_id: string;
        };
        /** SearchResult */
        SearchResult: {
            memories: components["schemas"]["MemoryGroups"];
        };
        /**
         * SessionContext
         * @description What a new session should see first: the latest handoff, then the hard constraints.
         */
        SessionContext: {
            /** Constraints */
            constraints: components["schemas"]["Atom"][];
            /** Earlier Handoffs */
            earlier_handoffs: components["schemas"]["Atom"][];
            handoff: components["schemas"]["Atom"] | null;
        };
        /** Stats */
        Stats: {
            /** Atoms */
            atoms: number;
            /** Edges */
            edges: number;
            /** Indexes */
            indexes: {
                [key: string]: number;
            };
            /**
             * Scope
             * @description the scope counted (empty: the whole tenant)
             */
            scope: {
                [key: string]: string;
            };
            /** Snapshot Version */
            snapshot_version: number;
        };
        /** UpdateRequest */
        UpdateRequest: {
            /** Content */
            content: string;
            /** User Id */
            user_id?: string | null;
        };
        /** UpdateResult */
        UpdateResult: {
            /**
             * Id
             * @description the new version's id
             */
            id: string;
            /**
             * Replaces
             * @description the id that was updated (now superseded)
             */
            replaces: string;
        };
        /** WriteResult */
        WriteResult: {
            /** Commit Passed */
            commit_passed: boolean;
            /** Decisions */
            decisions: components["schemas"]["Decision"][];
            /** Extracted Count */
            extracted_count: number;
            /**
             * Memory Id
             * @description the L0 raw record of this write
             */
            memory_id: string;
            /**
             * Memory Ids
             * @description the memories this write created (facts, profile items, procedures; with what an OVERRIDE kept of the memory it superseded), in decision order: the ids that get() and history() take, where memory_id is the raw record
             */
            memory_ids: string[];
            /** Procedure Ids */
            procedure_ids: string[];
            /**
             * Raw Ids
             * @description one L0 record per message
             */
            raw_ids: string[];
            /**
             * Scene
             * @default chat
             * @enum {string}
             */
            scene: "chat" | "coding";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    health_health_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    ready_ready_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description not ready: see checks */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    export_v1_export_get: {
        parameters: {
            query?: {
                app_id?: string | null;
                include_vectors?: boolean;
                user_id?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": unknown;
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    context_v1_hmg_context_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScopeFields"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionContext"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    correct_v1_hmg_correct_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CorrectRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CorrectResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    digest_v1_hmg_digest_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DigestRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DigestResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    govern_v1_hmg_govern_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GovernRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GovernResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    handoff_v1_hmg_handoff_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HandoffRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HandoffResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    history_v1_hmg_history__atom_id__get: {
        parameters: {
            query?: {
                agent_id?: string | null;
                /** @description default: the server's default_app_id */
                app_id?: string | null;
                /** @description '*' widens a read across branches */
                branch?: string | null;
                /** @description '*' widens a read across repositories */
                repository?: string | null;
                session_id?: string | null;
                user_id?: string | null;
                workspace?: string | null;
            };
            header?: never;
            path: {
                /** @description an atom id (ULID) */
                atom_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    memorize_v1_hmg_memorize_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemorizeRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemorizeResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    purge_v1_hmg_purge_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PurgeResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description a tenant's key: purge needs an operator's */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    recall_v1_hmg_recall_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecallRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecallResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    stats_v1_hmg_stats_get: {
        parameters: {
            query?: {
                agent_id?: string | null;
                /** @description default: the server's default_app_id */
                app_id?: string | null;
                /** @description '*' widens a read across branches */
                branch?: string | null;
                /** @description '*' widens a read across repositories */
                repository?: string | null;
                session_id?: string | null;
                user_id?: string | null;
                workspace?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stats"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    import__v1_import_post: {
        parameters: {
            query?: {
                /** @description the file's line number of the first memory line */
                first_line?: number;
                strict?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_memories_v1_memories__get: {
        parameters: {
            query: {
                agent_id?: string | null;
                /** @description default: [the server's default_app_id] */
                app_ids?: string[] | null;
                /** @description read as of this ISO 8601 date or date-time: the memories that held then, as they were then (default: now) */
                as_of?: string | null;
                /** @description add replaced and deleted versions */
                include_history?: boolean;
                limit?: number;
                /** @description only this session's; default: every session */
                session_id?: string | null;
                user_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryItem"][];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    add_v1_memories__post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AddRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WriteResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_v1_memories__memory_id__get: {
        parameters: {
            query?: {
                /** @description the version that held at this ISO 8601 date or date-time */
                as_of?: string | null;
                /** @description only if it belongs to this user */
                user_id?: string | null;
            };
            header?: never;
            path: {
                /** @description a memory id (ULID) */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryItem"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    update_v1_memories__memory_id__put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a memory id (ULID) */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpdateResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_v1_memories__memory_id__delete: {
        parameters: {
            query?: {
                /** @description only if it belongs to this user */
                user_id?: string | null;
            };
            header?: never;
            path: {
                /** @description a memory id (ULID) */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    history_v1_memories__memory_id__history_get: {
        parameters: {
            query?: {
                agent_id?: string | null;
                /** @description default: the server's default_app_id */
                app_id?: string | null;
                /** @description '*' widens a read across branches */
                branch?: string | null;
                /** @description '*' widens a read across repositories */
                repository?: string | null;
                session_id?: string | null;
                user_id?: string | null;
                workspace?: string | null;
            };
            header?: never;
            path: {
                /** @description a memory id (ULID) */
                memory_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    conversation_v1_memories_conversation_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    search_v1_memories_search_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    search_conversation_v1_memories_search_conversation_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchConversationRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    forget_user_v1_users__user_id__delete: {
        parameters: {
            query?: {
                /** @description only this app's memories; default: every app */
                app_id?: string | null;
            };
            header?: never;
            path: {
                /** @description the end user's id */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForgetResult"];
                };
            };
            /** @description invalid input (nothing was changed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description missing or unknown API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description no such memory for this tenant */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description invalid transition, or a concurrent change (retry) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request too large: its body, or the messages of one add (nothing was changed) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description request does not match the schema */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description over a limit of the tenant (rate_limited, too_many_writes, quota_exceeded); nothing was changed; wait Retry-After seconds when given */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description an LLM or embedding provider failed */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description the store is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
