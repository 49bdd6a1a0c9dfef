import "server-only";
import { toBase64Url } from "@/lib/upstream/base64url";

export { fromBase64Url, toBase64Url } from "@/lib/upstream/base64url";

/** A random identifier of `byteLength` bytes from the platform CSPRNG, base64url encoded. */
export function randomId(byteLength = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(byteLength)));
}
