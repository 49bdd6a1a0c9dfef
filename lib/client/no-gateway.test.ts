import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as standIn from "./no-gateway";

/** The names the AI SDK's browser code imports from `@ai-sdk/gateway`, read from its build. */
function namesTheSdkImports(): string[] {
  const names = new Set<string>();
  for (const file of ["dist/index.js", "dist/internal/index.js"]) {
    const code = readFileSync(join(process.cwd(), "node_modules/ai", file), "utf8");
    for (const [, list] of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']@ai-sdk\/gateway["']/g)) {
      for (const entry of list!.split(",")) {
        const name = entry.trim().split(/\s+as\s+/)[0];
        if (name) names.add(name);
      }
    }
  }
  return [...names].sort();
}

describe("the browser's stand-in for the AI Gateway", () => {
  it("exports every name the AI SDK imports from @ai-sdk/gateway (an upgrade that adds one fails here)", () => {
    const imported = namesTheSdkImports();
    expect(imported).toContain("gateway");
    expect(Object.keys(standIn).sort()).toEqual(imported);
  });

  it("throws a clear error wherever the gateway would be used", () => {
    expect(() => standIn.gateway()).toThrow(/not in this app's browser code/);
    const languageModel = Reflect.get(standIn.gateway, "languageModel") as (modelId: string) => unknown;
    expect(() => languageModel("gpt-5")).toThrow(/pass a provider's model/);
    expect(() => standIn.createGateway()).toThrow(/not in this app's browser code/);
  });

  it("takes no error for a gateway error, as none can come from it", () => {
    expect(standIn.GatewayError.isInstance()).toBe(false);
    expect(standIn.GatewayAuthenticationError.isInstance()).toBe(false);
  });

  it("is what the browser build resolves @ai-sdk/gateway to", async () => {
    const { default: config } = await import("@/next.config");
    expect(config.turbopack?.resolveAlias?.["@ai-sdk/gateway"]).toEqual({ browser: "./lib/client/no-gateway.ts" });
  });
});
