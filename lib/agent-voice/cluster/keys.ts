import "server-only";
/**
 * The shared store's keys for live agent-voice sessions, so that any instance can serve one
 * (docs/agent-voice.md#several-instances). Values under them are sealed with LWC_SECRET.
 */
const PREFIX = "lwc:agent-voice:";

/** The live session's record: its owner, the instance that hosts it, where its codex runs. */
export const sessionRecordKey = (sessionId: string) => `${PREFIX}session:${sessionId}`;
/** The login's live session id. */
export const loginSessionKey = (loginId: string) => `${PREFIX}login:${loginId}`;
/** The session's last events (bounded), for an event stream served by another instance. */
export const sessionEventsKey = (sessionId: string) => `${PREFIX}events:${sessionId}`;
/** Requests for the hosting instance (confirm, close) sent by another instance. */
export const sessionInboxKey = (sessionId: string) => `${PREFIX}inbox:${sessionId}`;
/** The hosting instance's answer to one request of the inbox. */
export const inboxReplyKey = (requestId: string) => `${PREFIX}reply:${requestId}`;
/** Held by the instance taking over a handed-off live session, so only one does. */
export const takeOverLockKey = (sessionId: string) => `${PREFIX}take-over:${sessionId}`;
/** Every login holding or starting a live session, on any instance: the caps count them. */
export const HOLDERS_KEY = `${PREFIX}holders`;
/** A Vercel sandbox a live session uses: the start-up sweep leaves it running. */
export const sandboxInUseKey = (sandboxId: string) => `${PREFIX}sandbox:${sandboxId}`;
