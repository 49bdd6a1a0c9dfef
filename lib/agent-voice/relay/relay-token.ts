import "server-only";
/**
 * A session relay's capability token: 32 random bytes. The server keeps the token (sealed, with the
 * live session); only its SHA-256 goes into the sandbox or VM, where the relay compares the hash of
 * each request's bearer token with it.
 */
import { createHash, randomBytes } from "node:crypto";

interface RelayToken {
  token: string;
  /** Hex SHA-256 of `token`: the relay's `--token-sha256`. */
  sha256: string;
}

export function newRelayToken(): RelayToken {
  const token = randomBytes(32).toString("base64url");
  return { token, sha256: createHash("sha256").update(token).digest("hex") };
}
