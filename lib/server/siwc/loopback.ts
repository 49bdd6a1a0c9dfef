import "server-only";
import { APP_BASE_PATH } from "@/lib/shared/base-path";
import type { ResolvedOptions, ResolvedSiwcOptions } from "../options";
import type { SignInChoices } from "../session/public-state";
import { requestOrigin } from "../http/request-origin";
import { forwardedFromElsewhere, isLoopbackAddress } from "./forwarded-clients";

/** The one host SIWC's redirect URI may name (spec: never `localhost`). */
export const CALLBACK_HOST = "127.0.0.1";
/** The fixed callback path at the app's root. */
export const CALLBACK_PATH = "/auth/callback";

/** Loopback names a browser may use for the same server; the start route sends them to 127.0.0.1 first. */
const OTHER_LOOPBACK_HOSTS = new Set(["localhost", "[::1]"]);

type LoopbackVerdict =
  /** The page is on http://127.0.0.1:<port>: SIWC runs here, with this port in the redirect URI. */
  | { kind: "loopback"; port: string }
  /** On localhost or [::1]: the same URL on 127.0.0.1 first, so cookie, state and callback share one origin. */
  | { kind: "redirect"; url: string }
  | { kind: "refused" };

/**
 * Whether SIWC can run for this request: only on a plain-http loopback origin (what the browser
 * used, from Host / X-Forwarded-Host / X-Forwarded-Proto), over a connection from this machine
 * (when the server knows the connection's address and `peerCheck` is on), for a client on this
 * machine as far as any proxy says (whatever `peerCheck` is: a proxy here that names another client
 * in `Forwarded`, `X-Forwarded-For` or `X-Real-IP` forwarded for someone else), and never on a
 * hosting platform.
 */
export function loopbackVerdict(request: Request, siwc: Pick<ResolvedSiwcOptions, "hosted" | "peerCheck">, peer: string | undefined): LoopbackVerdict {
  if (siwc.hosted) return { kind: "refused" };
  if (siwc.peerCheck && peer !== undefined && !isLoopbackAddress(peer)) return { kind: "refused" };
  if (forwardedFromElsewhere(request.headers, peer)) return { kind: "refused" };
  const origin = requestOrigin(request);
  if (origin === null) return { kind: "refused" };
  const url = new URL(origin);
  if (url.protocol !== "http:") return { kind: "refused" };
  const port = url.port || "80";
  if (url.hostname === CALLBACK_HOST) return { kind: "loopback", port };
  if (!OTHER_LOOPBACK_HOSTS.has(url.hostname)) return { kind: "refused" };
  // Next removes its basePath (LWC_BASE_PATH) from request.url before the route runs: put it back.
  const requested = new URL(request.url);
  return { kind: "redirect", url: `http://${CALLBACK_HOST}:${port}${APP_BASE_PATH}${requested.pathname}${requested.search}` };
}

/**
 * The sign-ins a signed-out state offers this request (public state `signIn`); undefined on a
 * server with the default sign-in (device code only), whose states stay as they always were.
 */
export function signInChoices(request: Request, options: Pick<ResolvedOptions, "signIn" | "peerAddress">): SignInChoices | undefined {
  const { signIn } = options;
  if (signIn.device && !signIn.siwc) return undefined;
  const methods: SignInChoices["methods"] = [];
  if (signIn.device) methods.push("device");
  if (!signIn.siwc) return { methods };
  methods.push("siwc");
  const verdict = loopbackVerdict(request, signIn.siwc, options.peerAddress(request));
  return { methods, siwc: verdict.kind === "refused" ? "needs_loopback" : "available" };
}
