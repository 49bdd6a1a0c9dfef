import { authenticateBackendCall, claimedAccountId, sendUnauthorized } from "./backend-auth";
import { sendCloudflareChallenge, sendEdgeUnavailable, sendServerError } from "./backend-errors";
import type { RouteHandler } from "./context";
import { sendJson } from "./http-util";
import { isVersionAtLeast } from "@/lib/upstream/version";
import { modelsForPlan } from "./models";

/** GET /backend-api/codex/models?client_version=x.y.z */
export const handleModels: RouteHandler = (context, call) => {
  const claimed = claimedAccountId(context, call);
  if (context.faults.take("cloudflare_challenge", claimed)) return sendCloudflareChallenge(call);
  if (context.faults.take("edge_unavailable", claimed)) return sendEdgeUnavailable(call);
  const caller = authenticateBackendCall(context, call);
  if (!caller) return;
  if (context.faults.take("backend_unauthorized", caller.accountId)) {
    return sendUnauthorized(call, "Provided authentication token is expired. Please try signing in again.", "token_expired");
  }
  if (context.faults.take("server_error", caller.accountId)) return sendServerError(call);
  const clientVersion = call.url.searchParams.get("client_version");
  const models = isVersionAtLeast(clientVersion, context.options.minClientVersion) ? modelsForPlan(caller.plan) : [];
  sendJson(call.response, 200, { models }, { etag: `W/"models-${caller.plan}-${models.length}"` });
};
