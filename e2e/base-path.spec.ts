import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { startExtraApp } from "./support/extra-app";
import { expectedReply } from "./support/mock-replies";

// The build made by `npm run build:base-path`: LWC_BASE_PATH=/chat-app and LWC_API_BASE_PATH=/api/chatgpt
// into .next-chat-app. Both are build-time settings; Next reads its basePath again at `next start`.
const BASE_PATH = "/chat-app";
const API = `${BASE_PATH}/api/chatgpt`;
let app: NextServer;

test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  app = await startExtraApp({ LWC_BASE_PATH: BASE_PATH, LWC_DIST_DIR: ".next-chat-app" });
});
test.afterAll(async () => {
  await app?.stop();
});

test("under LWC_BASE_PATH=/chat-app and LWC_API_BASE_PATH=/api/chatgpt the page signs in and streams a reply through /chat-app/api/chatgpt", async ({ page, mock, account }) => {
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
    `POST ${API}/login`,
    `GET ${API}/status`,
    `GET ${API}/models`,
    `POST ${API}/responses`,
  ]));
  // Nothing was sent anywhere else (the unprefixed paths and the route folder's own are not this app's API).
  expect(apiCalls.filter((call) => !call.includes(`${API}/`))).toEqual([]);
  const [upstreamCall] = await mock.responsesRequestsOf(account.accountId);
  expect(upstreamCall).toBeDefined();

  // The route folder's own path is not the API of this build: the handler answers only below /api/chatgpt.
  const folderPath = await page.request.get(`${app.url}${BASE_PATH}/api/provider/session`);
  expect(folderPath.status()).toBe(404);
  const moved = await page.request.get(`${app.url}${API}/session`);
  expect(await moved.json()).toMatchObject({ status: "authenticated" });
});
