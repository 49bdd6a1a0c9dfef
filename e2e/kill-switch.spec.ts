import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { startExtraApp } from "./support/extra-app";

let app: NextServer;

test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  app = await startExtraApp({ LWC_RESPONSES_PROXY: "off" });
});
test.afterAll(async () => {
  await app?.stop();
});

test("with LWC_RESPONSES_PROXY=off the page says model access is off and offers no sign-in", async ({ page }) => {
  const loginCalls: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.endsWith("/login")) loginCalls.push(request.url());
  });
  await page.goto(app.url);

  await expect(page.getByTestId("model-access-off")).toContainText("Model access is turned off on this server");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Model access is turned off");
  await expect(page.getByTestId("sign-in-button")).toHaveCount(0);
  await expect(page.getByRole("button")).toHaveCount(0);

  const health = await page.request.get(`${app.url}/api/health`);
  expect(await health.json()).toMatchObject({ status: "ok", modelAccess: "off" });
  expect(loginCalls).toEqual([]);
});
