"use client";

import { Streamdown } from "streamdown";
import { codeHighlighter } from "@/lib/client/code-highlighter";

const PLUGINS = { code: codeHighlighter };

/** Model output as Markdown, rendered incrementally while it streams (unfinished blocks render cleanly). */
export function MarkdownContent({ text, streaming, className = "" }: { text: string; streaming: boolean; className?: string }) {
  return (
    <Streamdown
      className={`lwc-markdown ${className}`}
      mode={streaming ? "streaming" : "static"}
      isAnimating={streaming}
      caret={streaming ? "block" : undefined}
      plugins={PLUGINS}
      controls={{ code: true, table: true, mermaid: false }}
      linkSafety={{ enabled: false }}
    >
      {text}
    </Streamdown>
  );
}
