import { randomBytes } from "node:crypto";
import { isRecord } from "./http-util";

/** The web_search tool of a request, when it asked for one. */
export function webSearchTool(tools: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools.filter(isRecord).find((tool) => tool.type === "web_search");
}

/** What the real backend adds to the search action when asked: the pages it read. */
export const WEB_SEARCH_SOURCES_INCLUDE = "web_search_call.action.sources";

export function webSearchCallId(): string {
  return `ws_${randomBytes(24).toString("hex")}`;
}

export interface UrlCitation {
  type: "url_citation";
  start_index: number;
  end_index: number;
  url: string;
  title: string;
}

const MAX_QUERY_CHARS = 120;

/** The search query: the question itself, on one line and bounded. */
export function searchQuery(question: string): string {
  return question.replace(/\s+/g, " ").trim().slice(0, MAX_QUERY_CHARS);
}

/**
 * Two made-up results on reserved example domains (nothing is fetched), then the answer citing
 * each the way real answers do: a markdown link in brackets that its url_citation spans.
 */
export function citedAnswer(answer: string, query: string): { text: string; citations: UrlCitation[] } {
  const slug = encodeURIComponent(query.toLowerCase().replace(/\s+/g, "-")) || "search";
  const results = [
    { url: `https://news.example.org/${slug}`, title: `${query} – Example News`, site: "news.example.org" },
    { url: `https://reference.example.com/wiki/${slug}`, title: `${query} – Example Reference`, site: "reference.example.com" },
  ];
  let text = `${answer} From the web:`;
  const citations: UrlCitation[] = [];
  results.forEach((result, index) => {
    text += ` ${index === 0 ? "one" : "another"} source `;
    const link = `([${result.site}](${result.url}))`;
    citations.push({ type: "url_citation", start_index: text.length, end_index: text.length + link.length, url: result.url, title: result.title });
    text += link;
  });
  return { text: `${text}.`, citations };
}
