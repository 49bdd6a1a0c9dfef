import "server-only";
/**
 * Where things are inside an agent-voice Vercel Sandbox VM. The snapshot
 * (`npm run agent-voice:snapshot`, snapshot.ts) puts the session relay and the pinned codex there;
 * each session's sandbox starts from it and runs the relay on the one exposed port.
 */

/** The one port each sandbox exposes: the session relay's. */
export const RELAY_PORT = 8080;
export const VM_HOME = "/home/vercel-sandbox";
/** What the snapshot adds, in the sandbox user's home (writable without sudo). */
const VM_LWC = `${VM_HOME}/lwc`;
/** The session relay script (lib/agent-voice/relay/session-relay-script.ts). */
export const VM_RELAY_SCRIPT = `${VM_LWC}/session-relay.cjs`;
/** A link to the pinned codex the snapshot installed (or, for the local fake, the image's copy). */
export const VM_CODEX = `${VM_LWC}/bin/codex`;
/** Where the snapshot installs `@openai/codex` with npm. */
export const VM_CODEX_PREFIX = `${VM_LWC}/codex`;
/** codex's home in the VM: mode 0700, its files 0600, written per session. */
export const VM_CODEX_HOME = `${VM_HOME}/.codex`;
export const VM_CWD = "/vercel/sandbox";
/** The tag every agent-voice sandbox carries, so a sweep can find them. */
export const APP_TAG = { key: "app", value: "lwc-agent-voice" } as const;
