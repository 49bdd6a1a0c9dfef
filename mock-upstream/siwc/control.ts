import { z } from "zod";
import type { RouteCall } from "../context";
import { sendJson } from "../http-util";
import type { MockUpstream } from "../types";
import { siwcSettingsSchema } from "./settings";
import { ELIGIBILITIES } from "./state";
import { SIWC_SWITCHES } from "./switches";

const switchSchema = z
  .object({
    switch: z.enum(SIWC_SWITCHES),
    times: z.number().int().min(0).optional(),
    grant: z.enum(["authorization_code", "refresh_token"]).optional(),
    durationMs: z.number().int().min(0).optional(),
  })
  .strict();
const accountSchema = z.object({ email: z.string().min(3), name: z.string().min(1).optional(), eligibility: z.enum(ELIGIBILITIES).optional() }).strict();
const disconnectSchema = z.object({ clientId: z.string().min(1) }).strict();
const clockSchema = z.object({ advanceSeconds: z.number() }).strict();
const modelSchema = z
  .object({ slug: z.string().min(1), display_name: z.string().min(1), visibility: z.enum(["list", "hide"]) })
  .catchall(z.unknown());
const catalogSchema = z.object({ models: z.array(modelSchema) }).strict();

function parse<T>(schema: z.ZodType<T>, call: RouteCall): T | undefined {
  const result = schema.safeParse(call.body.kind === "empty" ? {} : call.body.value);
  if (result.success) return result.data;
  sendJson(call.response, 400, { ok: false, error: "invalid_request", issues: result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
  return undefined;
}

/** `/__mock/siwc/*`: the SIWC controls for other processes. `route` is "METHOD /siwc/...". False when not ours. */
export function handleSiwcControl(mock: MockUpstream, call: RouteCall, route: string): boolean {
  const controls = mock.siwc;
  const reply = (body: Record<string, unknown>) => sendJson(call.response, 200, { ok: true, ...body });
  switch (route) {
    case "GET /siwc/state":
      reply({ state: controls.snapshot() });
      return true;
    case "GET /siwc/requests":
      reply({ requests: mock.requests().filter((r) => r.path.startsWith("/siwc/")) });
      return true;
    case "POST /siwc/settings": {
      const input = parse(siwcSettingsSchema, call);
      if (input) reply({ settings: controls.configure(input) });
      return true;
    }
    case "POST /siwc/switches": {
      const input = parse(switchSchema, call);
      if (input) {
        controls.arm(input);
        reply({});
      }
      return true;
    }
    case "DELETE /siwc/switches":
      controls.clearSwitches();
      reply({});
      return true;
    case "POST /siwc/accounts": {
      const input = parse(accountSchema, call);
      if (input) reply({ account: controls.setAccount(input.email, input) });
      return true;
    }
    case "POST /siwc/disconnect": {
      const input = parse(disconnectSchema, call);
      if (input) reply({ ended: controls.disconnect(input.clientId) });
      return true;
    }
    case "POST /siwc/clock": {
      const input = parse(clockSchema, call);
      if (input) {
        controls.advanceClock(input.advanceSeconds);
        reply({ clockOffsetSeconds: controls.snapshot().clockOffsetSeconds });
      }
      return true;
    }
    case "PUT /siwc/models": {
      const input = parse(catalogSchema, call);
      if (input) {
        controls.setCatalog(input.models);
        reply({});
      }
      return true;
    }
    case "DELETE /siwc/models":
      controls.setCatalog(null);
      reply({});
      return true;
    default:
      return false;
  }
}
