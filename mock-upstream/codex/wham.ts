import type { MockContext, RouteCall, RouteHandler } from "../context";
import { sendJson } from "../http-util";
import { sendUnauthorized } from "../backend-auth";

/**
 * The origin the real service names in workspace routing. codex only accepts a bare https origin
 * here; it does not send traffic to it as long as it uses a custom model provider id.
 */
const WORKSPACE_BACKEND_ORIGIN = "https://chatgpt.com";

interface TokenCaller {
  accountId: string;
  plan: string;
}

/** Like authenticateBackendCall, minus the ChatGPT-Account-ID header (codex may leave it out here). */
function authenticateToken(context: MockContext, call: RouteCall): TokenCaller | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(call.request.headers.authorization ?? "");
  if (!match) {
    sendUnauthorized(call, "Missing bearer authentication in header.", "missing_authorization");
    return undefined;
  }
  const verified = context.tokens.verifyAccessToken(match[1]!);
  if (!verified.ok) {
    sendUnauthorized(call, "Could not parse your authentication token. Please try signing in again.", `token_${verified.reason}`);
    return undefined;
  }
  return { accountId: verified.claims.accountId, plan: verified.claims.plan };
}

/** GET /backend-api/wham/accounts/check: codex's workspace routing discovery. */
export const handleAccountsCheck: RouteHandler = (context, call) => {
  const caller = authenticateToken(context, call);
  if (!caller) return;
  sendJson(call.response, 200, {
    accounts: [
      {
        id: caller.accountId,
        name: "Mock workspace",
        structure: "personal",
        plan_type: caller.plan,
        workspace_backend_origin: WORKSPACE_BACKEND_ORIGIN,
        account_routing_override: "NO_CONSTRAINT",
      },
    ],
    account_ordering: [caller.accountId],
    default_account_id: caller.accountId,
  });
};

/** GET /backend-api/wham/settings/user: fetched by codex at each turn start. */
export const handleUserSettings: RouteHandler = (context, call) => {
  const caller = authenticateToken(context, call);
  if (!caller) return;
  sendJson(call.response, 200, { settings: {} });
};
