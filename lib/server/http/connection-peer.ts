import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The address of the TCP peer of the request being handled, for the login limits (see
 * `clientAddressOf`): a client cannot invent it, unlike X-Forwarded-For, which Next.js passes on
 * as the client wrote it. The Node HTTP server runs each request inside `runWithConnectionPeer`
 * (lib/server/http/http-edges.ts, installed by instrumentation.ts); the handler reads it back through
 * its `peerAddress` option (lib/env-options.ts).
 *
 * One storage per process, kept on globalThis: instrumentation.ts and the route are bundled
 * separately, and each bundle has its own copy of this module.
 */
const STORAGE = Symbol.for("lwc.connectionPeer");

function storage(): AsyncLocalStorage<string> {
  const holder = globalThis as typeof globalThis & { [STORAGE]?: AsyncLocalStorage<string> };
  return (holder[STORAGE] ??= new AsyncLocalStorage<string>());
}

/** Runs `handle` (and everything it starts) with `address` as the connection's peer. */
export function runWithConnectionPeer<T>(address: string | undefined, handle: () => T): T {
  return address ? storage().run(address, handle) : handle();
}

/** The peer address of the request being handled, or undefined outside a request the server reported. */
export function connectionPeerAddress(): string | undefined {
  return storage().getStore();
}
