import "server-only";
import { createHash } from "node:crypto";
import { LOG_PREFIX } from "@/lib/logger";
import type { ServerContext } from "../context";
import { randomId, toBase64Url } from "../http/encoding";
import { loginLimitKeys } from "../http/client-address";
import { checkOrigin } from "../http/csrf";
import { errorResponse, rateLimited } from "../http/api-error";
import type { RouteHandler } from "../http/router";
import { bindingFor } from "./binding";
import { SIWC_RESOURCE } from "./config";
import type { SiwcClient } from "./client";
import { isSiwcFlowError } from "./flow-error";
import { CALLBACK_HOST, CALLBACK_PATH, loopbackVerdict } from "./loopback";
import { pageRedirect, redirect } from "./redirects";

/** The client id of a first registration: never saved, never sent to the token endpoint. */
export const DYNAMIC_CLIENT_ID = "dynamic_agent_client";
/** Identity (openid profile email) and plan usage (offline_access resource.invoke chatgpt.tokens.use.direct). */
const SCOPES = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct";

/**
 * GET {api}/siwc/start: a 302 to the issuer's authorize endpoint with a fresh state, nonce and PKCE
 * verifier (kept in the store for 10 minutes, never in the browser). A returning person (the
 * registration this browser last used, else the server's last) is sent with its issued client id,
 * and with its login hint only when this browser signed in with it; a first one, or
 * `?new=1`, registers anew (`dynamic_agent_client` with `agent_name_hint`). `?consent=1` asks for
 * plan usage again (`prompt=consent`).
 */
export function createStartRoute(ctx: ServerContext, siwc: SiwcClient | undefined): RouteHandler {
  return async (request) => {
    if (!siwc) return errorResponse("siwc_disabled");
    const verdict = loopbackVerdict(request, siwc.options, ctx.options.peerAddress(request));
    if (verdict.kind === "refused") return errorResponse("siwc_requires_loopback");
    if (verdict.kind === "redirect") return redirect(302, verdict.url);
    // Only the page's own navigation starts a sign-in: not an <img> or <script> on some other page
    // (Sec-Fetch-Mode no-cors), not another site's fetch (its Origin). Each start stores an attempt.
    if (request.headers.get("sec-fetch-mode") === "no-cors" || checkOrigin(request, ctx.options.allowedOrigins).kind === "rejected") {
      return errorResponse("siwc_navigation_required");
    }
    // Counted like device-code logins, per client address, in a bucket of its own.
    if (ctx.loginLimiter) {
      const limit = await ctx.loginLimiter.limit(`siwc:${(await loginLimitKeys(ctx.options.clientAddress(request))).client}`);
      if (!limit.success) throw rateLimited(limit.reset, ctx.options.now(), { message: "Too many sign-ins were started from here. Try again shortly." });
    }

    let endpoints;
    try {
      endpoints = await siwc.discovery.endpoints();
    } catch (error) {
      if (!isSiwcFlowError(error)) throw error;
      ctx.options.logger.warn(`${LOG_PREFIX} SIWC start failed: ${error.code} (${error.logDetail})`);
      return pageRedirect(error.code);
    }
    const query = new URL(request.url).searchParams;
    const { options } = siwc;
    const hostId = options.hostId ?? (await siwc.store.hostId());
    const binding = await bindingFor(request, ctx.signer);
    // A returning person: the registration this browser signed in with, else the server's last one.
    // Only the first names its email (login_hint): a browser proves it signed in here by its signed,
    // HttpOnly binding cookie, which the store ties to a registration only after a verified sign-in
    // from that browser. Any other browser (a new profile, someone else) must not learn the owner's email.
    const fresh = query.get("new") === "1";
    const own = fresh ? null : await siwc.store.browserRegistration(options.issuer, binding.id);
    const registration = fresh ? null : (own ?? (await siwc.store.lastRegistration(options.issuer)));
    const state = randomId();
    const nonce = randomId();
    const verifier = randomId();
    const redirectUri = `http://${CALLBACK_HOST}:${verdict.port}${CALLBACK_PATH}`;
    await siwc.store.saveAttempt(state, {
      binding: binding.id,
      verifier,
      nonce,
      redirectUri,
      clientId: registration?.clientId ?? null,
      createdAt: ctx.options.now(),
    });

    const authorize = new URL(endpoints.authorization);
    const params = authorize.searchParams;
    params.set("response_type", "code");
    params.set("client_id", registration?.clientId ?? DYNAMIC_CLIENT_ID);
    params.set("redirect_uri", redirectUri);
    params.set("scope", SCOPES);
    params.set("resource", SIWC_RESOURCE);
    params.set("state", state);
    params.set("nonce", nonce);
    params.set("code_challenge", toBase64Url(createHash("sha256").update(verifier).digest()));
    params.set("code_challenge_method", "S256");
    params.set("ext_agent_host_id", hostId);
    if (registration === null) params.set("agent_name_hint", options.agentName);
    else if (registration === own && registration.email) params.set("login_hint", registration.email);
    if (query.get("consent") === "1") params.set("prompt", "consent");
    return redirect(302, authorize.href, binding.setCookie);
  };
}
