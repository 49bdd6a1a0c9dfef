import type { UIMessage } from "ai";
import { GlobeIcon } from "../ui/icons";

/** Whether the model ran a web search for this answer (the provider-executed web_search tool). */
function searchedTheWeb(message: UIMessage): boolean {
  return message.parts.some((part) => part.type === "tool-web_search");
}

/** The value as an http or https URL, or null: a cited page is a link, never anything else. */
function webUrl(value: unknown): URL | null {
  if (typeof value !== "string" || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
}

/**
 * The pages the answer cites, once each, in order (the url_citation annotations, as source-url
 * parts). What the stream or an older import put there is not trusted to be well formed: a URL that
 * does not parse is left out, and a title that is not a string gives way to the host.
 */
function citedSources(message: UIMessage): { url: string; title: string }[] {
  const seen = new Set<string>();
  const sources: { url: string; title: string }[] = [];
  for (const part of message.parts) {
    if (part.type !== "source-url") continue;
    const url = webUrl(part.url);
    if (url === null || seen.has(part.url)) continue;
    seen.add(part.url);
    const title: unknown = part.title;
    sources.push({ url: part.url, title: (typeof title === "string" ? title.trim() : "") || url.hostname });
  }
  return sources;
}

/** The addresses of the pages the answer cites: its own links to them open without a prompt (MarkdownContent). */
export function citedUrls(message: UIMessage): string[] {
  return citedSources(message).map((source) => source.url);
}

/** "Searched the web" above an answer that searched, and its cited pages as links below it. */
export function WebSearchIndicator({ message }: { message: UIMessage }) {
  if (!searchedTheWeb(message)) return null;
  return (
    <p data-testid="web-search-indicator" className="mb-1.5 inline-flex items-center gap-1.5 text-[13px] text-muted-foreground">
      <GlobeIcon className="size-3.5" />
      Searched the web
    </p>
  );
}

export function WebSearchSources({ message }: { message: UIMessage }) {
  const sources = citedSources(message);
  if (sources.length === 0) return null;
  return (
    <nav aria-label="Sources" data-testid="web-search-sources" className="mt-2">
      <ol className="flex flex-col gap-1 text-[13px]">
        {sources.map((source) => (
          <li key={source.url} className="min-w-0 truncate">
            <a href={source.url} target="_blank" rel="noopener noreferrer" className="text-accent-foreground underline underline-offset-2">
              {source.title}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
