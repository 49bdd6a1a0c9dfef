"use client";

import { useState } from "react";
import { onDemand } from "@/lib/client/on-demand";
import type { Conversations } from "./use-conversations";
import type { ExportKind } from "./conversation-row";

/** What the last import said: how it went, or why nothing was imported. */
export interface FileNotice {
  kind: "status" | "error";
  text: string;
}

/** Hands text to the browser as a download; nothing leaves the browser. */
function saveFile(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked a little later: revoking at once can cancel the download before it starts.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// The file code (lib/client/conversation-export, -import with its zod schemas) loads on first use.
const exportCode = onDemand(() => import("@/lib/client/conversation-export"));
const importCode = onDemand(() => import("@/lib/client/conversation-import"));
const NOT_DOWNLOADED = "its code could not be downloaded (the connection may have dropped). Try again.";

/** Export (one conversation as Markdown or JSON, all as one backup) and Import, all in the browser. */
export function useConversationFiles(conversations: Conversations) {
  const [notice, setNotice] = useState<FileNotice | null>(null);
  const fail = (text: string) => setNotice({ kind: "error", text });

  const exportOne = async (id: string, kind: ExportKind) => {
    setNotice(null);
    const [files, conversation] = await Promise.all([exportCode.load().catch(() => null), conversations.read(id)]);
    if (!files) return fail(`Nothing was exported: ${NOT_DOWNLOADED}`);
    if (!conversation) return fail("That conversation could not be read from this browser.");
    if (kind === "markdown") saveFile(files.fileNameFor(conversation.title, "md"), files.conversationMarkdown(conversation), "text/markdown");
    else saveFile(files.fileNameFor(conversation.title, "json"), JSON.stringify(files.conversationFile(conversation, new Date()), null, 2), "application/json");
  };

  const exportAll = async () => {
    setNotice(null);
    const [files, all] = await Promise.all([exportCode.load().catch(() => null), conversations.readAll()]);
    if (!files) return fail(`Nothing was exported: ${NOT_DOWNLOADED}`);
    const now = new Date();
    saveFile(files.backupFileName(now), JSON.stringify(files.backupFile(all, now), null, 2), "application/json");
  };

  const importFile = async (file: File) => {
    setNotice(null);
    const code = await importCode.load().catch(() => null);
    if (!code) return fail(`Nothing was imported: ${NOT_DOWNLOADED}`);
    const { MAX_IMPORT_BYTES, importSummary, parseImportFile, planImport } = code;
    if (file.size > MAX_IMPORT_BYTES) return fail(`This file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB. Nothing was imported.`);
    let text: string;
    try {
      text = await file.text();
    } catch {
      return fail("The file could not be read. Nothing was imported.");
    }
    const parsed = parseImportFile(text);
    if (!parsed.ok) return fail(parsed.message);
    const present = [...conversations.list.map((item) => item.id), ...conversations.pendingDeletions.map((item) => item.id)];
    const plan = planImport(present, parsed.conversations);
    const added = await conversations.addConversations(plan.add);
    setNotice({ kind: "status", text: importSummary(added, parsed.conversations.length - added) });
  };

  return { notice, dismissNotice: () => setNotice(null), exportOne, exportAll, importFile };
}
