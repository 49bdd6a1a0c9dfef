import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { startExtraApp } from "./support/extra-app";
import { expectedReply } from "./support/mock-replies";

// The build made by `npm run build:base-path`: LWC_BASE_PATH=/chat-app into .next-chat-app.
const BASE_PATH = "/chat-app";
let app: NextServer;

test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  app = await startExtraApp({ LWC_BASE_PATH: BASE_PATH, LWC_DIST_DIR: ".next-chat-app" });
});
test.afterAll(async () => {
  await app?.stop();
});

test("under LWC_BASE_PATH=/chat-app the page signs in and streams a reply through /chat-app/api/provider", async ({ page, mock, account }) => {
  const apiCalls: string[] = [];
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname;
    if (path.includes("/api/")) apiCalls.push(`${request.method()} ${path}`);
  });
  await page.goto(`${app.url}${BASE_PATH}`);
  const signIn = new SignInPage(page);
  const userCode = await signIn.startSignIn();
  await mock.approve(userCode, account);
  const chat = new ChatPage(page);
  await chat.expectSignedInAs(account.email);

  const message = "hello from under a base path";
  await chat.sendAndWaitForReply(message, expectedReply(message));

  expect(apiCalls).toEqual(expect.arrayContaining([
    `POST ${BASE_PATH}/api/provider/login`,
    `GET ${BASE_PATH}/api/provider/status`,
    `GET ${BASE_PATH}/api/provider/models`,
    `POST ${BASE_PATH}/api/provider/responses`,
  ]));
  // Nothing was sent to the unprefixed paths (they are not this app's under the base path).
  expect(apiCalls.filter((call) => !call.includes(`${BASE_PATH}/api/`))).toEqual([]);
  const [upstreamCall] = await mock.responsesRequestsOf(account.accountId);
  expect(upstreamCall).toBeDefined();
});
