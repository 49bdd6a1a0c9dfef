import { z } from "zod";
import { handleCodexControl } from "./codex/control";
import { sendJson } from "./http-util";
import { handleSiwcControl } from "./siwc/control";
import type { RouteCall } from "./context";
import { MOCK_FAULTS, type MockUpstream } from "./types";

export const CONTROL_PREFIX = "/__mock/";

const accountSchema = z
  .object({ accountId: z.string().min(1), email: z.string().min(1), plan: z.string().min(1), userId: z.string().min(1) })
  .partial();
const codeSchema = z.object({ userCode: z.string().min(1) });
const approveSchema = codeSchema.extend({ account: accountSchema.optional() });
const faultSchema = z.object({
  fault: z.enum(MOCK_FAULTS),
  accountId: z.string().min(1).optional(),
  times: z.number().int().min(0).optional(),
  delayMs: z.number().int().min(0).optional(),
});
const optionsSchema = z
  .object({
    // Accepted for symmetry with startMockUpstream; ignored once listening.
    port: z.number().int(),
    host: z.string(),
    accessTokenTtlSeconds: z.number().positive(),
    deviceCodeTtlSeconds: z.number().positive(),
    pollIntervalSeconds: z.number().int().min(0),
    streamChunkDelayMs: z.number().min(0),
    minClientVersion: z.string().regex(/^\d+(\.\d+)*$/),
    enforcePollInterval: z.boolean(),
    codexAutoHandoff: z.boolean(),
    voiceWordMs: z.number().int().min(1),
  })
  .partial()
  .strict();

function parse<T>(schema: z.ZodType<T>, call: RouteCall): T | undefined {
  const result = schema.safeParse(call.body.kind === "empty" ? {} : call.body.value);
  if (result.success) return result.data;
  sendJson(call.response, 400, { ok: false, error: "invalid_request", issues: result.error.issues.map((i) => i.message) });
  return undefined;
}

function codeReply(call: RouteCall, ok: boolean): void {
  sendJson(call.response, ok ? 200 : 404, ok ? { ok: true } : { ok: false, error: "unknown_code" });
}

/** The control API under /__mock/, the same operations as the MockUpstream methods, for other processes. */
export function handleControl(mock: MockUpstream, call: RouteCall): void {
  const route = `${call.request.method} ${call.url.pathname.slice(CONTROL_PREFIX.length - 1)}`;
  switch (route) {
    case "GET /health":
      return sendJson(call.response, 200, { ok: true, url: mock.url });
    case "POST /approve": {
      const input = parse(approveSchema, call);
      if (input) codeReply(call, mock.approve(input.userCode, input.account));
      return;
    }
    case "POST /deny": {
      const input = parse(codeSchema, call);
      if (input) codeReply(call, mock.deny(input.userCode));
      return;
    }
    case "POST /expire": {
      const input = parse(codeSchema, call);
      if (input) codeReply(call, mock.expire(input.userCode));
      return;
    }
    case "POST /faults": {
      const input = parse(faultSchema, call);
      if (input) {
        mock.addFault(input);
        sendJson(call.response, 200, { ok: true });
      }
      return;
    }
    case "DELETE /faults":
      mock.clearFaults();
      return sendJson(call.response, 200, { ok: true });
    case "GET /voice-calls": {
      const accountId = call.url.searchParams.get("accountId");
      return sendJson(call.response, 200, { calls: mock.voiceCalls(accountId ? { accountId } : undefined) });
    }
    case "GET /requests": {
      const path = call.url.searchParams.get("path");
      return sendJson(call.response, 200, { requests: mock.requests(path ? { path } : undefined) });
    }
    case "POST /reset":
      mock.reset();
      return sendJson(call.response, 200, { ok: true });
    case "POST /options": {
      const input = parse(optionsSchema, call);
      if (input) {
        mock.setOptions(input);
        sendJson(call.response, 200, { ok: true });
      }
      return;
    }
    default:
      if (route.includes(" /siwc/") && handleSiwcControl(mock, call, route)) return;
      if (!handleCodexControl(mock.codex, call, route)) sendJson(call.response, 404, { ok: false, error: "not_found" });
  }
}
