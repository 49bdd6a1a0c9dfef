import type { RouteCall } from "../context";
import { sendJson } from "../http-util";
import type { SiwcContext } from "./context";
import type { RefreshFamily, SiwcAccount } from "./state";

interface ApiCaller {
  family: RefreshFamily;
  account: SiwcAccount;
  scopes: string[];
}

/**
 * The Bearer must be an access token we signed, unexpired, whose grant is alive (not revoked,
 * reused or disconnected). Otherwise 401 `{detail}`, as the API answers before a stream.
 */
export async function authenticate(siwc: SiwcContext, call: RouteCall): Promise<ApiCaller | undefined> {
  const header = call.request.headers.authorization ?? "";
  const token = /^Bearer (\S+)$/.exec(header)?.[1];
  if (!token) {
    sendJson(call.response, 401, { detail: "Missing bearer authentication in header" });
    return undefined;
  }
  const payload = await siwc.key.verify(token, new Date(siwc.state.now()));
  const family = typeof payload?.jti === "string" ? siwc.state.families.get(siwc.state.accessTokens.get(payload.jti) ?? "") : undefined;
  const account = family ? siwc.state.accounts.get(family.sub) : undefined;
  if (!payload || !family || !account) {
    sendJson(call.response, 401, { detail: "Invalid or expired access token." });
    return undefined;
  }
  if (family.ended !== null) {
    sendJson(call.response, 401, { detail: "This authorization is no longer valid." });
    return undefined;
  }
  return { family, account, scopes: typeof payload.scope === "string" ? payload.scope.split(" ") : [] };
}
