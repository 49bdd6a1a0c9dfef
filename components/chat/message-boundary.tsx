"use client";

import { Component, type ErrorInfo, type ReactNode } from "react";

/** What stands in for a message the chat cannot show. */
export function MessageUnavailable({ messageId }: { messageId: string }) {
  return (
    <p
      data-testid="message-unavailable"
      data-message-id={messageId}
      role="note"
      className="self-start rounded-xl border border-border bg-muted px-3 py-2 text-[13px] italic text-muted-foreground"
    >
      {"This message can't be shown."}
    </p>
  );
}

interface MessageBoundaryProps {
  messageId: string;
  /** The message shown; when it changes (another answer version, a new part), showing it is tried again. */
  message: unknown;
  children: ReactNode;
}

/**
 * One message whose rendering throws (a part an older import let through, or anything else the
 * chat cannot read) becomes one line instead of taking the whole page down: the rest of the
 * conversation, the composer and the list keep working, after a reload too.
 */
export class MessageBoundary extends Component<MessageBoundaryProps, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Which message, and where it broke; never the message's content.
    console.error(`A message could not be shown (${this.props.messageId}):`, error instanceof Error ? error.message : error, info.componentStack ?? "");
  }

  componentDidUpdate(previous: MessageBoundaryProps): void {
    if (this.state.failed && previous.message !== this.props.message) this.setState({ failed: false });
  }

  render(): ReactNode {
    return this.state.failed ? <MessageUnavailable messageId={this.props.messageId} /> : this.props.children;
  }
}
