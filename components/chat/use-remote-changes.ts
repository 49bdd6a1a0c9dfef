"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import { sameBranch, versionPositions, type MessageTree, type VersionPosition } from "@/lib/client/message-tree";
import { branchAfterRemoteChange } from "@/lib/client/remote-branch";

interface RemoteChanges {
  /** The conversation's messages besides the branch on screen (earlier versions, other branches). */
  tree: MessageTree;
  /** For each message on screen with other versions: which one it is (‹ 1 / 2 ›). */
  versions: Map<string, VersionPosition>;
  /** Keeps this tree (the branch on screen included) before the branch moves elsewhere. */
  keep: (tree: MessageTree) => void;
  /** The kept conversation as another tab or device left it: shown at once, or when the call on screen ends. */
  receive: (kept: MessageTree) => void;
}

/** Never before any message made elsewhere: a message on screen not kept yet counts as the newest. */
const NOT_KEPT_YET = Number.MAX_SAFE_INTEGER;

/**
 * The open conversation's tree of messages, and what another tab or device changed in it: while
 * no call runs, the branch on screen takes it (lib/client/remote-branch), keeping what this tab
 * changed since; during a call, it waits for the call to end. Messages shown that way came from
 * the kept copy, so they are not saved again (`adopt`).
 */
export function useRemoteChanges(options: {
  initialTree: MessageTree;
  messages: ChatUIMessage[];
  busy: boolean;
  setMessages: (messages: ChatUIMessage[]) => void;
  adopt: (messages: ChatUIMessage[]) => void;
}): RemoteChanges {
  const { initialTree, messages, busy, setMessages, adopt } = options;
  const [tree, setTree] = useState(initialTree);
  // When this tab last changed each message (a message shown from the kept copy is not a change).
  const changedAt = useRef(new Map<string, number>());
  const adopted = useRef(new WeakSet<ChatUIMessage>());
  const shown = useRef(messages);
  const waiting = useRef<MessageTree | null>(null);

  useEffect(() => {
    const before = new Map(shown.current.map((message) => [message.id, message]));
    const now = Date.now();
    for (const message of messages) {
      if (before.get(message.id) !== message && !adopted.current.has(message)) changedAt.current.set(message.id, now);
    }
    shown.current = messages;
  }, [messages]);

  const apply = useCallback(() => {
    const kept = waiting.current;
    if (!kept) return;
    waiting.current = null;
    const merged = branchAfterRemoteChange(kept, shown.current, changedAt.current);
    setTree(merged.tree);
    if (sameBranch(merged.path, shown.current)) return;
    for (const message of merged.path) adopted.current.add(message);
    adopt(merged.path);
    setMessages(merged.path);
  }, [adopt, setMessages]);

  const busyRef = useRef(busy);
  useEffect(() => {
    busyRef.current = busy;
    if (!busy) apply();
  }, [busy, apply]);

  const receive = useCallback(
    (kept: MessageTree) => {
      waiting.current = kept;
      if (!busyRef.current) apply();
    },
    [apply],
  );

  const versions = useMemo(() => versionPositions(tree, messages, NOT_KEPT_YET), [tree, messages]);
  return { tree, versions, keep: setTree, receive };
}
