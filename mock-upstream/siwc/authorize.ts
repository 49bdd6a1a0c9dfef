import type { RouteCall } from "../context";
import { isRecord, sendJson, sendText } from "../http-util";
import { DECISION_PATH, renderConsentPage } from "./consent-page";
import { OPENAI_RESOURCE, type SiwcContext, type SiwcHandler } from "./context";
import {
  ALL_SCOPES,
  DEFAULT_SIWC_EMAIL,
  DYNAMIC_CLIENT_ID,
  ELIGIBILITIES,
  IDENTITY_SCOPES,
  randomId,
  WORKSPACES,
  type AuthorizationLogEntry,
  type Eligibility,
  type PendingAuthorization,
  type Registration,
  type Workspace,
} from "./state";

/** The only redirect the OSS flow accepts: literal 127.0.0.1, any port, path /auth/callback. */
const REDIRECT_PATTERN = /^http:\/\/127\.0\.0\.1:\d+\/auth\/callback$/;
const HOST_ID_PATTERN = /^(urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|urn:ietf:params:oauth:jwk-thumbprint:[A-Za-z0-9:_-]+|did:key:z[1-9A-HJ-NP-Za-km-z]+)$/i;
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const OTHER_ACCOUNT_EMAIL = "someone-else@example.com";

function invalid(call: RouteCall, error: string, description: string): void {
  sendJson(call.response, 400, { error, error_description: description });
}

/** The reason a query is refused, or undefined. Checked before anything is shown. */
function refusal(siwc: SiwcContext, q: URLSearchParams): [string, string] | undefined {
  const redirectUri = q.get("redirect_uri") ?? "";
  if (!REDIRECT_PATTERN.test(redirectUri)) {
    return ["invalid_request", "redirect_uri must be http://127.0.0.1:<port>/auth/callback"];
  }
  const clientId = q.get("client_id");
  if (!clientId) return ["invalid_request", "client_id is required"];
  if (clientId === DYNAMIC_CLIENT_ID) {
    if (!q.get("agent_name_hint")) return ["invalid_request", "agent_name_hint is required for a new registration"];
  } else if (!siwc.state.registrations.has(clientId)) {
    return ["invalid_client", "Unknown client_id"];
  }
  const hostId = q.get("ext_agent_host_id") ?? "";
  if (!HOST_ID_PATTERN.test(hostId)) return ["invalid_request", "ext_agent_host_id must be a urn:uuid, jwk-thumbprint URN or did:key"];
  if (q.get("response_type") !== "code") return ["unsupported_response_type", "response_type must be code"];
  if (q.get("code_challenge_method") !== "S256") return ["invalid_request", "code_challenge_method must be S256"];
  if (!CHALLENGE_PATTERN.test(q.get("code_challenge") ?? "")) return ["invalid_request", "code_challenge must be base64url(SHA-256(verifier))"];
  const resource = q.get("resource");
  if (resource !== OPENAI_RESOURCE && resource !== siwc.apiBase()) return ["invalid_target", `resource must be ${OPENAI_RESOURCE}`];
  const scopes = (q.get("scope") ?? "").split(" ").filter(Boolean);
  if (!scopes.includes("openid") || scopes.some((scope) => !ALL_SCOPES.includes(scope))) {
    return ["invalid_scope", `scope must include openid and only: ${ALL_SCOPES.join(" ")}`];
  }
  if (!q.get("state")) return ["invalid_request", "state is required"];
  return undefined;
}

/** GET /siwc/api/accounts/authorize: validate, then show the consent page (or the account selector). */
export const handleAuthorize: SiwcHandler = async (siwc, call) => {
  const q = call.url.searchParams;
  const refused = refusal(siwc, q);
  if (refused) return invalid(call, ...refused);
  const clientId = q.get("client_id")!;
  const newRegistration = clientId === DYNAMIC_CLIENT_ID;
  const prompt = q.get("prompt");
  const forceReconsent = q.get("force_reconsent") === "true";
  const consent = newRegistration || prompt === "consent" || forceReconsent;
  const scopes = q.get("scope")!.split(" ").filter(Boolean);
  const log: AuthorizationLogEntry = {
    at: siwc.state.now(),
    clientId,
    newRegistration,
    prompt,
    forceReconsent,
    consentShown: consent,
    pageShown: true,
    loginHint: q.get("login_hint"),
    idTokenHint: q.has("id_token_hint"),
    agentNameHint: q.get("agent_name_hint"),
    hostId: q.get("ext_agent_host_id")!,
    scopes,
    outcome: "pending",
    callbackClientId: null,
  };
  siwc.state.authorizations.push(log);
  const pending: PendingAuthorization = {
    id: randomId(18),
    clientId,
    newRegistration,
    redirectUri: q.get("redirect_uri")!,
    state: q.get("state")!,
    nonce: q.get("nonce") ?? undefined,
    codeChallenge: q.get("code_challenge")!,
    resource: q.get("resource")!,
    scopes,
    agentNameHint: q.get("agent_name_hint") ?? undefined,
    hostId: q.get("ext_agent_host_id")!,
    loginHint: q.get("login_hint") ?? undefined,
    log,
  };
  siwc.state.pending.set(pending.id, pending);
  const registration = siwc.state.registrations.get(clientId);
  if (!consent && registration && (await hintNames(siwc, q.get("id_token_hint"), registration))) {
    // A valid id_token_hint of this registration's person skips the account selector too.
    log.pageShown = false;
    return complete(siwc, call, pending, "approve", {});
  }
  const page = renderConsentPage({
    pending,
    action: `${new URL(siwc.issuer()).pathname}${DECISION_PATH}`,
    account: registration ? siwc.state.accounts.get(registration.sub) : undefined,
    consent,
    defaultEmail: pending.loginHint ?? DEFAULT_SIWC_EMAIL,
  });
  sendText(call.response, 200, "text/html; charset=utf-8", page);
};

/** Whether the hint is an ID token we signed for this client and its person (expired is fine). */
async function hintNames(siwc: SiwcContext, hint: string | null, registration: Registration): Promise<boolean> {
  const payload = hint ? await siwc.key.signedPayload(hint) : null;
  const audience = Array.isArray(payload?.aud) ? payload.aud : [payload?.aud];
  return payload?.sub === registration.sub && audience.includes(registration.clientId);
}

function field(fields: Record<string, unknown>, name: string): string {
  return typeof fields[name] === "string" ? (fields[name] as string).trim() : "";
}

function redirect(call: RouteCall, target: string, params: Record<string, string>): void {
  const url = new URL(target);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  call.response.writeHead(302, { location: url.toString(), "content-length": 0, "cache-control": "no-store" });
  call.response.end();
}

/**
 * POST /siwc/api/accounts/authorize/decision (the page's form): `request` (the hidden field),
 * `action` = approve | identity_only | decline, and on a new registration `email`, `name`, `plan`,
 * `workspace`, `agent_name`. Answers 302 to the redirect_uri, like the real page.
 */
export const handleDecision: SiwcHandler = (siwc, call) => {
  const fields = isRecord(call.body.value) ? call.body.value : {};
  const pending = siwc.state.pending.get(field(fields, "request"));
  if (!pending) return invalid(call, "invalid_request", "Unknown or already decided authorization request");
  const action = field(fields, "action");
  if (!["approve", "identity_only", "decline"].includes(action)) {
    return invalid(call, "invalid_request", "action must be approve, identity_only or decline");
  }
  complete(siwc, call, pending, action, fields);
};

/** The person's decision: registration, grant and code, then the 302 to the callback. */
function complete(siwc: SiwcContext, call: RouteCall, pending: PendingAuthorization, action: string, fields: Record<string, unknown>): void {
  siwc.state.pending.delete(pending.id);
  const log = pending.log;
  if (action === "decline") {
    log.outcome = "declined";
    return redirect(call, pending.redirectUri, {
      error: "access_denied",
      error_description: "The user declined the request.",
      state: pending.state,
    });
  }

  const { state } = siwc;
  let registration = state.registrations.get(pending.clientId);
  if (!registration) {
    const email = field(fields, "email") || pending.loginHint || DEFAULT_SIWC_EMAIL;
    const plan = field(fields, "plan");
    const account = state.account(email, {
      name: field(fields, "name") || undefined,
      eligibility: (ELIGIBILITIES as readonly string[]).includes(plan) ? (plan as Eligibility) : undefined,
    });
    const workspace = field(fields, "workspace");
    registration = state.register(
      account.sub,
      (WORKSPACES as readonly string[]).includes(workspace) ? (workspace as Workspace) : "personal",
      field(fields, "agent_name") || pending.agentNameHint || "",
      pending.hostId,
    );
  } else if (!registration.hosts.includes(pending.hostId)) {
    registration.hosts.push(pending.hostId);
  }

  const identity = pending.scopes.filter((scope) => (IDENTITY_SCOPES as readonly string[]).includes(scope));
  let granted: string[];
  if (action === "identity_only") granted = identity;
  else if (log.consentShown) granted = pending.scopes;
  else granted = pending.scopes.filter((scope) => registration.grantedScopes.includes(scope) || identity.includes(scope));
  registration.grantedScopes = granted;
  log.outcome = action === "identity_only" ? "identity_only" : "approved";

  const sub = siwc.switches.take("authorize_other_account") ? state.account(OTHER_ACCOUNT_EMAIL).sub : registration.sub;
  const code = `ac_${randomId(32)}`;
  state.codes.set(code, {
    clientId: registration.clientId,
    sub,
    hostId: pending.hostId,
    redirectUri: pending.redirectUri,
    codeChallenge: pending.codeChallenge,
    resource: pending.resource,
    nonce: pending.nonce,
    scopes: granted,
    expiresAt: state.now() + siwc.settings.codeTtlSeconds * 1000,
    used: false,
  });

  let callbackClientId: string | null = registration.clientId;
  if (siwc.switches.take("authorize_other_client_id")) callbackClientId = `oaiapp_${randomId(12)}`;
  else if (pending.newRegistration && siwc.switches.take("authorize_omit_client_id")) callbackClientId = null;
  else if (!pending.newRegistration && siwc.settings.reauthClientId === "omit") callbackClientId = null;
  log.callbackClientId = callbackClientId;

  redirect(call, pending.redirectUri, {
    code,
    state: pending.state,
    ...(callbackClientId ? { client_id: callbackClientId } : {}),
    ...(siwc.settings.callbackScope ? { scope: [...granted].sort().join(" ") } : {}),
  });
}
