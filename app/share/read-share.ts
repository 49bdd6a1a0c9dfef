import "server-only";
import { headers } from "next/headers";
import { readSharedConversation, type SharedConversation } from "@/lib/client/shared-conversation";
import { providerHandler } from "@/lib/provider-app";

export type ShareRead =
  | { kind: "found"; conversation: SharedConversation }
  /** Unknown, revoked, or history is off on this server (the API does not tell them apart). */
  | { kind: "missing" }
  | { kind: "busy"; retryAfterSeconds?: number }
  | { kind: "unavailable" };

/** Headers that say who is asking, so the share reads are counted per client address as the API counts them. */
const FORWARDED = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "host"];

/**
 * A share's snapshot through the app's own API handler, in this process (GET /shared/:id): no
 * session is read or set, and the reader's address counts against the share-read limit.
 */
export async function readShare(id: string): Promise<ShareRead> {
  const incoming = await headers();
  const forwarded = new Headers();
  for (const name of FORWARDED) {
    const value = incoming.get(name);
    if (value !== null) forwarded.set(name, value);
  }
  const url = `http://internal${providerHandler.basePath}/shared/${encodeURIComponent(id)}`;
  const response = await providerHandler.handler(new Request(url, { headers: forwarded }));
  if (response.status === 404) return { kind: "missing" };
  if (response.status === 429) {
    const body = (await response.json().catch(() => null)) as { retryAfterSeconds?: unknown } | null;
    return { kind: "busy", ...(typeof body?.retryAfterSeconds === "number" ? { retryAfterSeconds: body.retryAfterSeconds } : {}) };
  }
  if (!response.ok) return { kind: "unavailable" };
  const conversation = readSharedConversation(await response.json().catch(() => null));
  return conversation ? { kind: "found", conversation } : { kind: "unavailable" };
}
