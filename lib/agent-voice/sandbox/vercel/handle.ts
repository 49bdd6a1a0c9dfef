import "server-only";
/**
 * What a second server instance needs to reach a running agent-voice sandbox: a plain JSON value to
 * keep with the live session in the shared store. The relay token is NOT in it: the store keeps it
 * sealed, next to the handle, and `reopenVercelSandbox(handle, token)` takes both.
 *
 *   {
 *     "kind": "vercel-sandbox",
 *     "sandboxId": "sbx-…",                      // the sandbox's name in the Sandbox API
 *     "relayUrl": "https://sb-….vercel.run",      // the url the API reported for the relay's port
 *     "relayEpoch": "<uuid>"                     // the relay's boot id: another one means it restarted
 *   }
 */
import { z } from "zod";

const handleSchema = z.object({
  kind: z.literal("vercel-sandbox"),
  sandboxId: z.string().min(1).max(200),
  relayUrl: z.string().regex(/^https?:\/\/[^\s]+$/, "an http(s) URL"),
  relayEpoch: z.string().min(1).max(100),
});

export type VercelSandboxHandle = z.output<typeof handleSchema>;

/** A handle read back from the store; throws when it is not one. */
export function parseVercelSandboxHandle(value: unknown): VercelSandboxHandle {
  const parsed = handleSchema.safeParse(value);
  if (!parsed.success) throw new Error("not a Vercel Sandbox handle");
  return parsed.data;
}
