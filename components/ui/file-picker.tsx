"use client";

import { useRef, type ComponentPropsWithoutRef } from "react";

interface FilePickerProps extends Omit<ComponentPropsWithoutRef<"button">, "type" | "onClick"> {
  /** The file types the browser's picker offers (the input's `accept`). */
  accept: string;
  multiple?: boolean;
  onFiles: (files: File[]) => void;
  inputTestId: string;
  /** The hidden input's own name. */
  inputLabel?: string;
}

/**
 * A button that opens the browser's file picker (a hidden file input). The picked files are handed
 * over, and the input is cleared, so picking the same file again counts as a new pick.
 */
export function FilePicker({ accept, multiple = false, onFiles, inputTestId, inputLabel, children, ...button }: FilePickerProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={inputRef}
        type="file"
        data-testid={inputTestId}
        aria-label={inputLabel}
        accept={accept}
        multiple={multiple}
        hidden
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = "";
          if (files.length > 0) onFiles(files);
        }}
      />
      <button type="button" {...button} onClick={() => inputRef.current?.click()}>
        {children}
      </button>
    </>
  );
}
