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

it("keeps the placeholder repository, with an alert right above the button that says what to change in a fork", () => {
  const lines = readme.split("\n");
  const button = lines.findIndex((line) => line.startsWith("[![Deploy with Vercel]"));
  expect(lines[button]).toContain("github.com%2FOWNER%2Flogin-with-chatgpt");
  // The block right above the button (after the section's heading) is a GitHub alert, so a fork sees it before the button.
  const heading = lines.lastIndexOf("### Deploy to Vercel", button);
  const above = lines.slice(heading + 1, button).join("\n").trim();
  expect(above).toMatch(/^> \[!IMPORTANT\]\n/);
  for (const words of ["OWNER", "repository-url", "envLink", "your fork"]) expect(above, words).toContain(words);
});
