import "server-only";
/**
 * The history's bounds, each written once (docs/api.md#limits says them). Requests and replies stay
 * under Vercel's 4.5 MB body limit, and no request reads or writes a whole history.
 */

/** Largest request body of a history route: a message with its images must fit in one. */
export const MAX_HISTORY_REQUEST_BYTES = 4_000_000;
/** Items (conversation writes, message writes, deletes) in one POST /history/changes. */
export const MAX_PUSH_ITEMS = 200;
/** Items in one page of GET /history/changes: the default and the most a `limit` may ask for. */
export const DEFAULT_PULL_LIMIT = 1_000;
export const MAX_PULL_LIMIT = 1_000;
/** A page stops adding items once their sealed sizes pass this (it always holds at least one). */
export const PULL_PAGE_BYTES = 3_000_000;
/** The person's instructions, in characters. */
export const MAX_INSTRUCTIONS_CHARS = 8_000;
/** A conversation's title, in characters. */
export const MAX_TITLE_CHARS = 1_000;
/** A share snapshot's size as JSON. */
export const MAX_SHARE_BYTES = 4_000_000;
/** Live share links per account. */
export const MAX_SHARES_PER_ACCOUNT = 1_000;
/** Sealed content kept per account (default of the handler's `history.maxBytesPerAccount`). */
export const DEFAULT_MAX_BYTES_PER_ACCOUNT = 1_000_000_000;
