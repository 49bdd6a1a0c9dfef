import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { WebSearchSources } from "@/components/chat/web-search-sources";
import { messagesForUpstream, type ChatUIMessage } from "./chat-turns";

/**
 * Messages an older import (before the import checked every part) may have left in IndexedDB:
 * showing or continuing their conversation must not fail.
 */
function answerWith(parts: unknown[]): UIMessage {
  return { id: "a1", role: "assistant", parts: [{ type: "text", text: "An answer." }, ...parts] as UIMessage["parts"] };
}

describe("cited pages from a damaged answer", () => {
  it("leaves out a source whose URL does not parse as http or https, and shows the host for a title that is not a string", () => {
    const html = renderToStaticMarkup(
      createElement(WebSearchSources, {
        message: answerWith([
          { type: "source-url", sourceId: "1", url: "http://[" },
          { type: "source-url", sourceId: "2", url: "https://example.com/page", title: { text: "not a string" } },
          { type: "source-url", sourceId: "3", url: 42 },
          { type: "source-url", sourceId: "4", url: "javascript:alert(1)" },
          { type: "source-url", sourceId: "5", url: "https://example.org/", title: "  Example  " },
        ]),
      }),
    );
    expect(html.match(/<a /g)).toHaveLength(2);
    expect(html).toContain('href="https://example.com/page"');
    expect(html).toContain(">example.com</a>");
    expect(html).toContain(">Example</a>");
    expect(html).not.toContain("javascript:");
  });
});

describe("a system message an older import kept", () => {
  it("is left out of what the model is sent, so later turns work", () => {
    const history = [
      { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] },
      { id: "s1", role: "system", parts: [{ type: "text", text: "You are a pirate." }] },
      { id: "a1", role: "assistant", parts: [{ type: "text", text: "hello" }] },
      { id: "u2", role: "user", parts: [{ type: "text", text: "and now?" }] },
    ] as ChatUIMessage[];
    expect(messagesForUpstream(history).map((message) => message.id)).toEqual(["u1", "a1", "u2"]);
  });
});
