import { MOCK_CLIENT_ID, type RouteHandler } from "./context";
import { isRecord, sendJson } from "./http-util";

/** POST /api/accounts/deviceauth/usercode */
export const handleUserCode: RouteHandler = (context, call) => {
  if (context.faults.take("device_code_disabled", undefined)) {
    return sendJson(call.response, 404, { error: { code: "not_found", message: "Device code login is not enabled." } });
  }
  if (context.faults.take("device_code_server_error", undefined)) {
    return sendJson(call.response, 500, { error: { code: "internal_error", message: "Internal server error" } });
  }
  const body = call.body.value;
  if (call.body.kind !== "json" || !isRecord(body)) {
    return sendJson(call.response, 400, { error: { code: "invalid_request", message: "Expected a JSON body." } });
  }
  if (body.client_id !== MOCK_CLIENT_ID) {
    return sendJson(call.response, 400, { error: { code: "invalid_client", message: "Unknown or missing client_id." } });
  }
  const issued = context.devices.issue(context.options.deviceCodeTtlSeconds);
  sendJson(call.response, 200, {
    device_auth_id: issued.deviceAuthId,
    user_code: issued.userCode,
    interval: String(context.options.pollIntervalSeconds),
  });
};

/** POST /api/accounts/deviceauth/token */
export const handleDevicePoll: RouteHandler = (context, call) => {
  const body = call.body.value;
  if (call.body.kind !== "json" || !isRecord(body)) {
    return sendJson(call.response, 400, { error: { code: "invalid_request", message: "Expected a JSON body." } });
  }
  if (typeof body.device_auth_id !== "string" || typeof body.user_code !== "string") {
    return sendJson(call.response, 400, {
      error: { code: "invalid_request", message: "device_auth_id and user_code are required." },
    });
  }
  const minIntervalMs = context.options.enforcePollInterval
    ? Math.max(0, context.options.pollIntervalSeconds - 1) * 1000
    : undefined;
  const result = context.devices.poll(body.device_auth_id, body.user_code, { minIntervalMs });
  switch (result.kind) {
    case "unknown":
      return sendJson(call.response, 404, {
        error: { code: "deviceauth_not_found", message: "Unknown device authorization." },
      });
    case "pending":
      return sendJson(call.response, 403, {
        error: { code: "deviceauth_authorization_pending", message: "The user has not approved the request yet." },
      });
    case "too_fast":
      return sendJson(call.response, 429, { error: { code: "slow_down", message: "Polling too fast." } });
    case "denied":
      return sendJson(call.response, 400, { error: { code: "access_denied", message: "The user denied the request" } });
    case "expired":
      return sendJson(call.response, 400, { error: { code: "expired_token", message: "The device code has expired" } });
    case "approved":
      return sendJson(call.response, 200, {
        authorization_code: result.authorizationCode,
        code_challenge: result.codeChallenge,
        code_verifier: result.codeVerifier,
      });
  }
};
