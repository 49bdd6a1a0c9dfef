import "server-only";
import { timingSafeEqual } from "node:crypto";

/**
 * Whether two strings are equal, compared in constant time for their length: how long it takes
 * says nothing about where a secret (a nonce, a binding id) first differs.
 */
export function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
