"use client";

import { useEffect, useState } from "react";
import { CheckIcon, CopyIcon } from "./icons";

interface CopyButtonProps {
  text: string;
  /** Accessible name before copying, e.g. "Copy code". */
  label: string;
  className?: string;
  testId?: string;
  showLabel?: boolean;
}

async function writeToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Clipboard API refused (insecure origin, permissions): fall back to a hidden textarea.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const copied = document.execCommand("copy");
    area.remove();
    return copied;
  }
}

/** Copies text and says "Copied" for two seconds (announced to screen readers). */
export function CopyButton({ text, label, className = "", testId, showLabel = true }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  return (
    <button
      type="button"
      data-testid={testId}
      className={className}
      onClick={async () => setCopied(await writeToClipboard(text))}
      aria-label={showLabel ? undefined : copied ? "Copied" : label}
    >
      {copied ? <CheckIcon className="size-4" /> : <CopyIcon className="size-4" />}
      {showLabel && <span aria-live="polite">{copied ? "Copied" : label}</span>}
    </button>
  );
}
