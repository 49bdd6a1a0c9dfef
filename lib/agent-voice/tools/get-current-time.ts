import "server-only";
import type { RealtimeTool } from "../types";

/** Answers at once with the server's time. No arguments. */
export const getCurrentTime: RealtimeTool = {
  name: "get_current_time",
  description: "Returns the current date and time of the server (ISO 8601, UTC).",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  async run(_args, ctx) {
    return { now: new Date(ctx.now()).toISOString() };
  },
};
