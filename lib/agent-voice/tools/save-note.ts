import "server-only";
import { z } from "zod";
import type { RealtimeTool } from "../types";
import { addNote, MAX_NOTE_CHARS } from "./notes";

const argsSchema = z.object({ text: z.string().trim().min(1).max(MAX_NOTE_CHARS) });

/**
 * Saves a note for the signed-in account, only after the person approves it on screen: the review
 * payload shows the note's text; `run` is called by `confirmTool` after approval.
 */
export const saveNote: RealtimeTool = {
  name: "save_note",
  description: "Saves a short note for the user. The user must approve it on screen before it is saved.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The note's text.", maxLength: MAX_NOTE_CHARS } },
    required: ["text"],
    additionalProperties: false,
  },
  needsConfirmation: true,
  review(args) {
    return { text: argsSchema.parse(args).text };
  },
  async run(args, ctx) {
    const { text } = argsSchema.parse(args);
    const note = await addNote(ctx.store, ctx.account.accountId, text, ctx.now());
    return { saved: true, noteId: note.id };
  },
};
