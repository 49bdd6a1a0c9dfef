import MiniSearch, { type SearchResult } from "minisearch";
import { textOf, type ChatUIMessage } from "./chat-turns";

/**
 * Full-text search over the conversations this browser keeps (MiniSearch, in memory). One document
 * per conversation (its title and the text of its messages); a hit then names the message that
 * holds the matched words and a snippet around them. The index follows the store with `sync`,
 * which re-indexes only conversations added or changed since the last call.
 */
export interface SearchableConversation {
  id: string;
  title: string;
  updatedAt: number;
  messages: Pick<ChatUIMessage, "id" | "role" | "parts">[];
}

/** A piece of text; `match` pieces are the words the query found. */
export interface TextSegment {
  text: string;
  match: boolean;
}

interface SearchHit {
  conversationId: string;
  /** The title in segments (matched words marked). */
  title: TextSegment[];
  updatedAt: number;
  /** The message holding most of the matched words, or null when only the title matched. */
  messageId: string | null;
  /** Words around the match in that message (or the start of the conversation for a title hit). */
  snippet: TextSegment[];
}

/** How many conversations a search lists at most. */
const MAX_HITS = 20;
/** About how many characters a snippet shows, and how many of them come before the first match. */
const SNIPPET_CHARS = 140;
const SNIPPET_LEAD = 40;
/**
 * The word being typed counts as a prefix of any word from this many letters on. Shorter, it is a
 * prefix in titles (few words), and in messages only when few of their words start with it: a
 * short prefix of a common start expands to so many words that a query over a thousand long
 * conversations takes hundreds of milliseconds (docs/benchmarks.md#conversation-search).
 */
const MIN_PREFIX_CHARS = 4;
/** A shorter prefix counts in messages when at most this many of their words start with it. */
const SHORT_PREFIX_MAX_WORDS = 5;
/** How many conversations the dialog lists before anything is typed. */
const RECENT_HITS = 8;
/** Conversations indexed between two pauses that let the page draw (and show progress). */
const SYNC_CHUNK = 25;
/** Up to this many matched words, a substring check skips messages before they are split into words. */
const QUICK_LOOK_TERMS = 8;

// MiniSearch's default token boundary (spaces and punctuation); words are what lies between.
const WORD = /[^\n\r\p{Z}\p{P}]+/gu;

/** Lower case without accents, so "cafe" finds "Café". Applied to indexed and queried words alike. */
function normalizeTerm(term: string): string {
  // Most words are plain ASCII: lower-casing them is all it takes, and ten times quicker.
  if (ASCII.test(term)) return term.toLowerCase();
  return term.normalize("NFD").replace(/\p{Diacritic}/gu, "").toLowerCase();
}
const ASCII = /^[\x00-\x7f]*$/;

type Query = Parameters<MiniSearch["search"]>[0];

interface IndexedDocument {
  id: string;
  title: string;
  text: string;
}

function messageText(message: SearchableConversation["messages"][number]): string {
  return textOf(message as ChatUIMessage);
}

/** Splits `text` into segments, marking the words whose normalized form is in `terms`. */
export function markTerms(text: string, terms: ReadonlySet<string>): TextSegment[] {
  const segments: TextSegment[] = [];
  let last = 0;
  for (const word of text.matchAll(WORD)) {
    if (!terms.has(normalizeTerm(word[0]))) continue;
    if (word.index > last) segments.push({ text: text.slice(last, word.index), match: false });
    segments.push({ text: word[0], match: true });
    last = word.index + word[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), match: false });
  return segments;
}

function countMatchedWords(text: string, terms: ReadonlySet<string>): { distinct: number; first: number } {
  // A quick look first when the query found few words: most messages of a long conversation hold none.
  if (terms.size <= QUICK_LOOK_TERMS) {
    const normalized = normalizeTerm(text);
    if (![...terms].some((term) => normalized.includes(term))) return { distinct: 0, first: -1 };
  }
  const found = new Set<string>();
  let first = -1;
  for (const word of text.matchAll(WORD)) {
    const term = normalizeTerm(word[0]);
    if (!terms.has(term)) continue;
    found.add(term);
    if (first < 0) first = word.index;
  }
  return { distinct: found.size, first };
}

/** About SNIPPET_CHARS of `text` (one line of whitespace) around `at`, cut at word boundaries, matches marked. */
export function snippetAround(text: string, at: number, terms: ReadonlySet<string>): TextSegment[] {
  const flat = text.replace(/\s+/g, " ");
  // Whitespace runs shrank to one space: find where `at` landed.
  const position = text.slice(0, at).replace(/\s+/g, " ").length;
  let start = Math.max(0, position - SNIPPET_LEAD);
  if (start > 0) {
    const space = flat.indexOf(" ", start);
    start = space >= 0 && space < position ? space + 1 : start;
  }
  let end = Math.min(flat.length, start + SNIPPET_CHARS);
  if (end < flat.length) {
    const space = flat.lastIndexOf(" ", end);
    end = space > position ? space : end;
  }
  const segments = markTerms(flat.slice(start, end).trim(), terms);
  if (start > 0) segments.unshift({ text: "…", match: false });
  if (end < flat.length) segments.push({ text: "…", match: false });
  return segments;
}

/** The first message with text, as a snippet: what a conversation is about when no word matched in it. */
function openingSnippet(conversation: SearchableConversation): TextSegment[] {
  const opening = conversation.messages.map(messageText).find((text) => text.trim()) ?? "";
  return snippetAround(opening, 0, new Set());
}

/** The most recent conversations, newest first, as unmatched hits: what the search shows before anything is typed. */
export function recentHits(conversations: readonly SearchableConversation[], limit = RECENT_HITS): SearchHit[] {
  return [...conversations]
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .slice(0, limit)
    .map((conversation) => ({
      conversationId: conversation.id,
      title: [{ text: conversation.title, match: false }],
      updatedAt: conversation.updatedAt,
      messageId: null,
      snippet: openingSnippet(conversation),
    }));
}

/**
 * MiniSearch, plus one question its term index (a radix tree, kept for subclasses) answers at the
 * cost of the words it returns: which words of message text start with a prefix.
 */
class MessageWordIndex extends MiniSearch<IndexedDocument> {
  /** Words of message text starting with `prefix`: all of them when at most `limit`, else `limit + 1` of them. */
  textWordsStartingWith(prefix: string, limit: number): string[] {
    const textField = this._fieldIds.text;
    const words: string[] = [];
    for (const [word, fields] of this._index.atPrefix(prefix)) {
      if (textField === undefined || !fields.get(textField)?.size) continue;
      words.push(word);
      if (words.length > limit) break;
    }
    return words;
  }
}

export class ConversationSearchIndex {
  private readonly index = new MessageWordIndex({
    fields: ["title", "text"],
    processTerm: normalizeTerm,
    searchOptions: {
      boost: { title: 2 },
      combineWith: "AND",
      // Longer words forgive one typo; the word being typed is a prefix (see typedWord).
      prefix: false,
      fuzzy: (term) => (term.length >= 6 ? 1 : false),
    },
  });
  private readonly conversations = new Map<string, SearchableConversation>();
  // One sync at a time: a second waits for the first, so no conversation is added twice.
  private syncing: Promise<void> = Promise.resolve();

  /** The number of conversations indexed. */
  get size(): number {
    return this.conversations.size;
  }

  /**
   * Makes the index hold exactly `conversations`: adds new ones, re-indexes changed ones, drops the
   * rest. Works in chunks with a pause between them, so the page stays responsive while a large
   * history is indexed; `onProgress` hears how many of the conversations to index are done.
   */
  sync(conversations: Iterable<SearchableConversation>, onProgress?: (done: number, total: number) => void): Promise<void> {
    const run = this.syncing.then(() => this.syncNow([...conversations], onProgress));
    this.syncing = run.catch(() => {});
    return run;
  }

  private async syncNow(conversations: SearchableConversation[], onProgress?: (done: number, total: number) => void): Promise<void> {
    const seen = new Set(conversations.map((conversation) => conversation.id));
    for (const id of [...this.conversations.keys()]) {
      if (seen.has(id)) continue;
      this.index.discard(id);
      this.conversations.delete(id);
    }
    const changed = conversations.filter((conversation) => {
      const known = this.conversations.get(conversation.id);
      return !known || known.updatedAt !== conversation.updatedAt || known.title !== conversation.title;
    });
    for (let start = 0; start < changed.length; start += SYNC_CHUNK) {
      if (start > 0) await new Promise((resolve) => setTimeout(resolve, 0));
      for (const conversation of changed.slice(start, start + SYNC_CHUNK)) {
        if (this.conversations.has(conversation.id)) this.index.discard(conversation.id);
        this.index.add({ id: conversation.id, title: conversation.title, text: conversation.messages.map(messageText).join("\n") });
        this.conversations.set(conversation.id, conversation);
      }
      onProgress?.(Math.min(start + SYNC_CHUNK, changed.length), changed.length);
    }
  }

  /**
   * The word still being typed: a prefix from MIN_PREFIX_CHARS letters on; shorter, a prefix in
   * titles, and in messages either its few expansions or the whole word.
   */
  private typedWord(word: string): Query {
    if (word.length >= MIN_PREFIX_CHARS) return { queries: [word], prefix: true };
    const expansions = this.index.textWordsStartingWith(word, SHORT_PREFIX_MAX_WORDS);
    const inText = expansions.length > 0 && expansions.length <= SHORT_PREFIX_MAX_WORDS ? expansions : [word];
    return {
      combineWith: "OR",
      queries: [
        { queries: [word], fields: ["title"], prefix: true },
        { queries: inText, fields: ["text"], combineWith: "OR" },
      ],
    };
  }

  /** The best conversations for `query` (all its words must occur), best first. */
  search(query: string, limit = MAX_HITS): SearchHit[] {
    const words = [...query.matchAll(WORD)].map((word) => normalizeTerm(word[0]));
    if (words.length === 0) return [];
    const queries: Query[] = words.map((word, position) => (position === words.length - 1 ? this.typedWord(word) : word));
    return this.index
      .search({ combineWith: "AND", queries })
      .slice(0, limit)
      .flatMap((result) => {
        const conversation = this.conversations.get(result.id as string);
        return conversation ? [this.hit(conversation, result)] : [];
      });
  }

  private hit(conversation: SearchableConversation, result: SearchResult): SearchHit {
    const inText = new Set(result.terms.filter((term) => result.match[term]?.includes("text")));
    const title = markTerms(conversation.title, new Set(result.terms));
    // A message with as many different matched words as the query has words holds them all (near
    // enough: a prefix can match two words of one message); the first such message is the one.
    const enough = Math.min(inText.size, result.queryTerms.length);
    let best: { id: string; text: string; distinct: number; first: number } | null = null;
    if (inText.size > 0) {
      for (const message of conversation.messages) {
        const text = messageText(message);
        const { distinct, first } = countMatchedWords(text, inText);
        if (distinct > (best?.distinct ?? 0)) best = { id: message.id, text, distinct, first };
        if (best && best.distinct >= enough) break;
      }
    }
    if (best) return { conversationId: conversation.id, title, updatedAt: conversation.updatedAt, messageId: best.id, snippet: snippetAround(best.text, best.first, inText) };
    return { conversationId: conversation.id, title, updatedAt: conversation.updatedAt, messageId: null, snippet: openingSnippet(conversation) };
  }
}
