import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { CODEX_FOR_E2E } from "./support/codex";

/** Records every CSP violation the page reports (the DOM event and the console line both). */
async function watchCspViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`console: ${message.text()}`);
  });
  await page.exposeFunction("__reportCspViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation;
      report(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
    });
  });
  return violations;
}

test("pages carry a nonce CSP and the fixed security headers", async ({ page }) => {
  const response = await page.goto("/");
  const headers = response!.headers();
  const csp = headers["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain("unsafe-eval");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["permissions-policy"]).toContain("microphone=(self)");
  // A fresh nonce per page load.
  const again = (await page.request.get("/")).headers()["content-security-policy"];
  expect(again).not.toBe(csp);
});

test("signing in and a streamed markdown reply with code and maths run without a single CSP violation", async ({ page, signInPage, mock, account, chatPage }) => {
  const violations = await watchCspViolations(page);
  await signInPage.goto();
  const userCode = await signInPage.startSignIn();
  await mock.approve(userCode, account);
  await chatPage.expectSignedInAs(account.email);

  // The mock echoes the message, so the reply renders it as markdown: a table, highlighted code.
  const message = [
    "Render **bold** text and `inline code` and a table:",
    "",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "",
    "```js\nconst answer = 42;\n```",
    "",
    "And maths: $$x^2$$",
  ].join("\n");
  await chatPage.send(message);
  const reply = chatPage.lastAssistantMessage();
  await expect(reply).toHaveAttribute("data-status", "done");
  await expect(reply.locator('[data-streamdown="strong"]', { hasText: "bold" }).last()).toBeVisible();
  await expect(reply.locator('[data-streamdown="table"]')).toBeVisible();
  await expect(reply.locator('[data-streamdown="code-block"]', { hasText: "const answer = 42;" })).toBeVisible();
  // KaTeX and its stylesheet download when maths first shows, under the same policy.
  await expect(reply.getByTestId("answer-text").locator(".katex")).toHaveCount(1);
  expect(violations).toEqual([]);
});

test("/api/health reports the store and the kill switch, with a request id on API replies", async ({ request }) => {
  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
  // Agent voice runs codex in its sandbox when the suite has codex (bubblewrap is installed with it).
  // With agent voice, how each codex process's memory and process caps hold: cgroup where delegated, else rlimit.
  const agentVoice = CODEX_FOR_E2E ? { agentVoice: "sandboxed", agentVoiceLimits: expect.stringMatching(/^(cgroup|rlimit)$/) } : { agentVoice: "off" };
  expect(await health.json()).toEqual({ status: "ok", store: "ok", modelAccess: "on", ...agentVoice });
  const session = await request.get("/api/provider/session", { headers: { "x-request-id": "uptime-check-1" } });
  expect(session.headers()["x-request-id"]).toBe("uptime-check-1");
});
