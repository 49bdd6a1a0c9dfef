/** README's Deploy-to-Vercel button asks for what the app needs there: LWC_SECRET and a shared store. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");

it("clones the repository, asks for LWC_SECRET and adds Upstash Redis", () => {
  const link = /\[!\[Deploy with Vercel\]\(https:\/\/vercel\.com\/button\)\]\((https:\/\/vercel\.com\/new\/clone\?[^)\s]+)\)/.exec(readme)?.[1];
  expect(link).toBeDefined();
  const params = new URL(link!).searchParams;
  expect(params.get("repository-url")).toMatch(/^https:\/\/github\.com\/[^/]+\/login-with-chatgpt$/);
  expect(params.get("env")?.split(",")).toEqual(["LWC_SECRET"]);
  expect(params.get("envDescription")).toContain("32 or more random characters");
  expect(params.get("envLink")).toBe(`${params.get("repository-url")}#deploy-to-vercel`);
  expect(JSON.parse(params.get("stores")!)).toEqual([{ type: "integration", protocol: "storage", productSlug: "upstash-kv", integrationSlug: "upstash" }]);
});
