import { config } from "zod";

/*
 * The page's Content-Security-Policy forbids eval. Zod's fast path probes `new Function` once, and
 * the browser reports that probe as a CSP violation even though zod catches it; `jitless` skips
 * the probe. Zod decides when a schema is built, so this must run before any module of the chat
 * (the AI SDK builds its schemas on load): it is the first import of components/chat-workspace.tsx.
 */
config({ jitless: true });
