import "server-only";
/**
 * The reference app's notes: a short list per account in the handler's session store (memory or
 * Upstash), so they work on every instance. Writes hold a short lock so two saves cannot lose one.
 */
import type { KeyValueStore } from "@/lib/stores/types";

export const NOTES_KEY_PREFIX = "lwc:notes:";
const NOTES_LOCK_PREFIX = "lwc:lock:notes:";
export const MAX_NOTES = 100;
export const MAX_NOTE_CHARS = 1_000;
/** Notes are kept this long after the last save. */
export const NOTES_TTL_MS = 90 * 24 * 60 * 60_000;
const LOCK_TTL_MS = 5_000;
const LOCK_WAIT_MS = 5_000;

export interface Note {
  id: string;
  text: string;
  createdAt: number;
}

function parse(raw: string | null): Note[] {
  if (raw === null) return [];
  try {
    const value = JSON.parse(raw) as unknown;
    return Array.isArray(value) ? (value as Note[]) : [];
  } catch {
    return [];
  }
}

export async function listNotes(store: KeyValueStore, accountId: string): Promise<Note[]> {
  return parse(await store.get(`${NOTES_KEY_PREFIX}${accountId}`));
}

/** Adds a note (newest first; the oldest beyond MAX_NOTES are dropped). */
export async function addNote(store: KeyValueStore, accountId: string, text: string, now: number): Promise<Note> {
  const lockKey = `${NOTES_LOCK_PREFIX}${accountId}`;
  const lockValue = crypto.randomUUID();
  const deadline = Date.now() + LOCK_WAIT_MS;
  while (!(await store.setIfAbsent(lockKey, lockValue, LOCK_TTL_MS))) {
    if (Date.now() > deadline) throw new Error("the notes are busy");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  try {
    const note: Note = { id: crypto.randomUUID(), text, createdAt: now };
    const notes = [note, ...(await listNotes(store, accountId))].slice(0, MAX_NOTES);
    await store.set(`${NOTES_KEY_PREFIX}${accountId}`, JSON.stringify(notes), NOTES_TTL_MS);
    return note;
  } finally {
    await store.deleteIfEquals(lockKey, lockValue).catch(() => undefined);
  }
}
