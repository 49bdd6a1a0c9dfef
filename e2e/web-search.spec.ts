import type { NextServer } from "../test-support/next-server";
import { expect, test } from "./fixtures";
import { ChatPage } from "./pages/chat-page";
import { SignInPage } from "./pages/sign-in-page";
import { startExtraApp } from "./support/extra-app";
import { expectedReply } from "./support/mock-replies";

// The mock's two made-up results for a question (mock-upstream/web-search.ts).
const sourcesFor = (question: string) => {
  const slug = encodeURIComponent(question.toLowerCase().replace(/\s+/g, "-"));
  return [`https://news.example.org/${slug}`, `https://reference.example.com/wiki/${slug}`];
};

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test.describe(`web search at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("the Search the web switch (off by default) sends the web_search tool; the answer shows the search and links its citations", async ({ page, signedInChat: chat, mock, account }) => {
      const toggle = page.getByRole("switch", { name: "Search the web" });
      await expect(toggle).toBeVisible();
      await expect(toggle).toHaveAttribute("aria-checked", "false");

      // Off: a plain answer, no tool.
      await chat.sendAndWaitForReply("hello", expectedReply("hello"));
      expect((await mock.responsesRequestsOf(account.accountId)).at(-1)?.body).not.toHaveProperty("tools");
      await expect(chat.lastAssistantMessage().getByTestId("web-search-indicator")).toHaveCount(0);

      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-checked", "true");
      const question = "weather in Lisbon";
      await chat.send(question);
      const answer = chat.lastAssistantMessage();
      await expect(answer).toHaveAttribute("data-status", "done");
      await expect(answer.getByTestId("web-search-indicator")).toHaveText("Searched the web");

      const sent = (await mock.responsesRequestsOf(account.accountId)).at(-1)?.body as { tools?: unknown[] };
      expect(sent.tools).toEqual([{ type: "web_search", external_web_access: true }]);

      const links = answer.getByTestId("web-search-sources").getByRole("link");
      await expect(links).toHaveCount(2);
      const [first, second] = sourcesFor(question);
      await expect(links.nth(0)).toHaveAttribute("href", first!);
      await expect(links.nth(1)).toHaveAttribute("href", second!);
      await expect(links.nth(0)).toHaveText(`${question} – Example News`);
      await expect(links.nth(0)).toHaveAttribute("target", "_blank");
      await expect(links.nth(0)).toHaveAttribute("rel", /noopener/);
      await expect(links.nth(0)).toBeInViewport();

      // The switch stays on for the next message, and the search and its sources survive a reload.
      await expect(toggle).toHaveAttribute("aria-checked", "true");
      await expect.poll(() => chat.conversationIdInUrl()).not.toBeNull();
      await page.reload();
      await expect(chat.lastAssistantMessage().getByTestId("web-search-indicator")).toHaveText("Searched the web");
      await expect(chat.lastAssistantMessage().getByTestId("web-search-sources").getByRole("link")).toHaveCount(2);

      // The next new chat starts with the switch off again.
      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-checked", "true");
      await chat.newChatButton.click();
      await expect(toggle).toHaveAttribute("aria-checked", "false");
    });

    test("a citation in the answer opens its page at once; any other link of the answer still asks first", async ({ page, context, signedInChat: chat }) => {
      const question = "tides in Porto";
      const [cited] = sourcesFor(question);
      // The cited page never leaves this machine: the browser is answered here.
      await context.route("https://news.example.org/**", (route) => route.fulfill({ contentType: "text/html", body: "<title>Example News</title>" }));
      await page.getByRole("switch", { name: "Search the web" }).click();
      await chat.send(question);
      const answer = chat.lastAssistantMessage();
      await expect(answer).toHaveAttribute("data-status", "done");

      const citation = answer.getByTestId("answer-text").getByRole("link", { name: "news.example.org" });
      await expect(citation).toHaveAttribute("href", cited!);
      await expect(citation).toHaveAttribute("target", "_blank");
      await expect(citation).toHaveAttribute("rel", "noopener noreferrer");
      const popup = page.waitForEvent("popup");
      await citation.click();
      expect((await popup).url()).toBe(cited);
      await expect(page.getByText("Open external link?")).toHaveCount(0);

      // A link the answer merely repeats (here: the mock echoes the question's) is not a citation.
      await page.getByRole("switch", { name: "Search the web" }).click();
      await chat.send("see [the tide table](https://tides.example.net/porto)");
      const echoed = chat.lastAssistantMessage();
      await expect(echoed).toHaveAttribute("data-status", "done");
      await echoed.getByTestId("answer-text").getByText("the tide table").click();
      await expect(page.getByText("Open external link?")).toBeVisible();
    });
  });
}

test.describe("LWC_WEB_SEARCH=off", () => {
  let app: NextServer;
  test.describe.configure({ mode: "serial" });
  test.beforeAll(async () => {
    app = await startExtraApp({ LWC_WEB_SEARCH: "off" });
  });
  test.afterAll(async () => {
    await app?.stop();
  });

  test("hides the switch, and the server refuses a request that carries the tool anyway", async ({ page, mock, account }) => {
    await page.goto(app.url);
    const userCode = await new SignInPage(page).startSignIn();
    await mock.approve(userCode, account);
    const chat = new ChatPage(page);
    await chat.expectSignedInAs(account.email);
    await chat.sendAndWaitForReply("hello", expectedReply("hello"));
    await expect(page.getByRole("switch", { name: "Search the web" })).toHaveCount(0);

    const refused = await page.evaluate(async () => {
      const reply = await fetch("/api/provider/responses", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-5.4-mini", stream: true, input: "hi", tools: [{ type: "web_search" }] }),
      });
      return { status: reply.status, body: (await reply.json()) as { error: string } };
    });
    expect(refused).toEqual({ status: 403, body: expect.objectContaining({ error: "web_search_disabled" }) });
  });
});
