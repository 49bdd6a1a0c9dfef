import "server-only";
import { LOG_PREFIX } from "@/lib/logger";
import { constantTimeEquals } from "../http/constant-time";
import type { ServerContext } from "../context";
import { serializeSessionCookie } from "../http/cookies";
import { randomId } from "../http/encoding";
import { errorResponse } from "../http/api-error";
import type { RouteHandler } from "../http/router";
import type { SessionManager } from "../session/manager";
import type { AuthenticatedRecord } from "../session/record";
import { readBinding } from "./binding";
import { SIWC_RESOURCE } from "./config";
import type { SiwcClient } from "./client";
import { isSiwcFlowError, SiwcFlowError } from "./flow-error";
import { loopbackVerdict } from "./loopback";
import { pageRedirect } from "./redirects";
import { DYNAMIC_CLIENT_ID } from "./start";
import type { VerifiedIdentity } from "./id-token";
import type { Attempt } from "./store";
import { exchangeCode, PLAN_USAGE_SCOPE, revokeRefreshToken, TokenEndpointError, type GrantedTokens } from "./token-endpoint";

/** What an issued client id may look like (and never the registration placeholder). */
const ISSUED_CLIENT_ID = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * GET /auth/callback (the app's root, outside the API's base path): finishes a SIWC sign-in.
 * A state that is unknown, used, expired or another browser's: 400 `siwc_state_invalid`, and
 * nothing is exchanged. Every other failure: 303 to the page with `?signin_error=<code>`. Success:
 * a signed-in session under a NEW session id, and 303 to the page.
 */
export function createCallbackRoute(ctx: ServerContext, manager: SessionManager, siwc: SiwcClient): RouteHandler {
  const { options } = ctx;
  const stateInvalid = () => errorResponse("siwc_state_invalid");

  /** The attempt the state names, for the browser that started it, used up (once, whoever asks). */
  async function takeAttempt(request: Request, state: string | null): Promise<Attempt | null> {
    if (!state) return null;
    const found = await siwc.store.peekAttempt(state);
    if (found === null) return null;
    const binding = await readBinding(request, ctx.signer);
    // Another browser's link is refused without using the attempt up: its own browser may still finish it.
    if (binding === null || !constantTimeEquals(binding, found.value.binding)) return null;
    if (!(await siwc.store.takeAttempt(state, found.sealed))) return null;
    return found.value;
  }

  /**
   * The client id to exchange the code with. A returning registration keeps its id (an absent
   * `client_id` means it; a different one is refused and nothing is overwritten). A new one must
   * come back with its issued id, which is saved BEFORE the exchange, so a failure after it
   * reuses the registration instead of making another.
   */
  async function clientIdFor(attempt: Attempt, returned: string | null): Promise<string> {
    if (attempt.clientId !== null) {
      if (returned !== null && returned !== attempt.clientId) {
        throw new SiwcFlowError("siwc_client_mismatch", "the callback named another client id than the saved registration");
      }
      return attempt.clientId;
    }
    if (returned === null || returned === DYNAMIC_CLIENT_ID || !ISSUED_CLIENT_ID.test(returned)) {
      throw new SiwcFlowError("siwc_registration_incomplete", "a new registration came back without an issued client id");
    }
    const issuer = siwc.options.issuer;
    if ((await siwc.store.registration(issuer, returned)) === null) {
      await siwc.store.saveRegistration({ issuer, clientId: returned, savedAt: options.now() });
    }
    return returned;
  }

  /** The code exchanged and the ID token verified, or a SiwcFlowError (tokens got meanwhile are revoked). */
  async function exchange(attempt: Attempt, query: URLSearchParams): Promise<{ clientId: string; granted: GrantedTokens; identity: VerifiedIdentity }> {
    const error = query.get("error");
    if (error !== null) {
      if (error === "access_denied") throw new SiwcFlowError("siwc_access_denied", "the person declined");
      // The value is the browser's to choose: only a code-shaped part of it reaches the log line.
      throw new SiwcFlowError("siwc_exchange_failed", `the authorize endpoint answered error=${error.replace(/[^a-z_]/g, "").slice(0, 60)}`);
    }
    const code = query.get("code");
    if (!code) throw new SiwcFlowError("siwc_exchange_failed", "the callback carried no code");
    const clientId = await clientIdFor(attempt, query.get("client_id"));
    const { issuer } = siwc.options;
    const endpoints = await siwc.discovery.endpoints();

    let granted: GrantedTokens;
    try {
      granted = await exchangeCode(
        siwc.upstream,
        endpoints.token,
        { clientId, code, verifier: attempt.verifier, redirectUri: attempt.redirectUri, resource: SIWC_RESOURCE },
        options.now(),
      );
    } catch (error) {
      if (!(error instanceof TokenEndpointError)) throw error;
      const { status, codes, body } = error.failure;
      throw new SiwcFlowError("siwc_exchange_failed", `code exchange: status=${status ?? "none"} codes=${codes.join(",") || "none"}${body ? ` body=${JSON.stringify(body)}` : ""}`);
    }
    try {
      if (!granted.idToken) throw new SiwcFlowError("invalid_id_token", "the token reply carried no ID token");
      const identity = await siwc.idTokens.verify(granted.idToken, { jwksUri: endpoints.jwks, issuer, clientId, nonce: attempt.nonce });
      const saved = await siwc.store.registration(issuer, clientId);
      if (saved?.subject !== undefined && saved.subject !== identity.subject) {
        // Another person's account for this registration: the saved registration stays as it is.
        throw new SiwcFlowError("account_mismatch", "the ID token's sub differs from the registration's");
      }
      await siwc.store.saveBrowserRegistration(issuer, attempt.binding, clientId);
      await siwc.store.saveRegistration({
        issuer,
        clientId,
        subject: identity.subject,
        ...(identity.email ? { email: identity.email } : saved?.email ? { email: saved.email } : {}),
        savedAt: options.now(),
      });
      return { clientId, granted, identity };
    } catch (error) {
      // Tokens that will not be kept are revoked, so no grant is left behind.
      if (granted.refreshToken && endpoints.revocation) {
        await revokeRefreshToken(siwc.upstream, endpoints.revocation, { clientId, refreshToken: granted.refreshToken });
      }
      throw error;
    }
  }

  /** The signed-in session under a NEW session id; whatever session this browser held ends (its tokens revoked). */
  async function signIn(request: Request, { clientId, granted, identity }: Awaited<ReturnType<typeof exchange>>): Promise<Response> {
    // Plan usage is granted by the token reply's scope, and by nothing else.
    const scopes = granted.scopes ?? [];
    const planUsage = scopes.includes(PLAN_USAGE_SCOPE);
    const planNotice = planUsage && !(await siwc.store.noticeSeen(siwc.options.issuer, identity.subject));
    const now = options.now();
    const sessionExpiresAt = now + options.sessionTtlMs;
    const record: AuthenticatedRecord = {
      version: 1,
      loginId: randomId(16),
      createdAt: now,
      expiresAt: sessionExpiresAt,
      state: "authenticated",
      tokens: {
        idToken: granted.idToken!,
        accessToken: granted.accessToken,
        refreshToken: granted.refreshToken ?? "",
        // Without a refresh token (identity only: no offline_access) nothing can be refreshed, and
        // nothing needs its access token (plan usage is off): the sign-in lasts the session.
        expiresAt: granted.refreshToken ? granted.expiresAt : sessionExpiresAt,
      },
      account: { accountId: identity.subject, email: identity.email, plan: "unknown" },
      siwc: { clientId, subject: identity.subject, scopes, planUsage, ...(planNotice ? { planNotice } : {}) },
    };
    await manager.end(await manager.read(request));
    const sessionId = randomId();
    await ctx.sessions.save(sessionId, record);
    return pageRedirect(undefined, serializeSessionCookie(request, options.cookie, await ctx.signer.sign(sessionId)));
  }

  return async (request) => {
    // The same rule as the start: a callback reaching this server from elsewhere is not this machine's.
    if (loopbackVerdict(request, siwc.options, options.peerAddress(request)).kind === "refused") {
      return errorResponse("siwc_requires_loopback");
    }
    const query = new URL(request.url).searchParams;
    // One state, exactly: a duplicated parameter is refused, whichever copy is real.
    const states = query.getAll("state");
    const attempt = states.length === 1 ? await takeAttempt(request, states[0]!) : null;
    if (attempt === null) return stateInvalid();
    try {
      return await signIn(request, await exchange(attempt, query));
    } catch (error) {
      if (!isSiwcFlowError(error)) throw error;
      options.logger.warn(`${LOG_PREFIX} SIWC sign-in failed: ${error.code} (${error.logDetail})`);
      return pageRedirect(error.code);
    }
  };
}
