import { notFound } from "next/navigation";
import { BrandMark } from "@/components/ui/brand-mark";
import { SharedConversationView } from "@/components/share/shared-conversation-view";
import { readShare } from "../read-share";

/**
 * A shared chat's read-only page: opens signed out, and shows only the snapshot (its title and
 * messages): no account, no usage, no session is read or made. Unknown and revoked links say so
 * (not-found.tsx, with a 404).
 */
export default async function SharePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const read = await readShare(id);
  if (read.kind === "missing") notFound();
  return (
    <main className="mx-auto flex min-h-dvh w-full max-w-3xl flex-col gap-6 px-4 py-6 sm:px-6">
      <header className="flex items-center gap-2 border-b border-border pb-4">
        <BrandMark className="size-7 shrink-0" />
        <div className="min-w-0">
          <p className="text-[12px] font-medium uppercase tracking-wide text-muted-foreground">Shared chat · read-only</p>
          <h1 data-testid="shared-title" dir="auto" className="text-lg font-semibold [overflow-wrap:anywhere]">
            {read.kind === "found" ? read.conversation.title : "Shared chat"}
          </h1>
        </div>
      </header>
      {read.kind === "found" ? (
        <SharedConversationView conversation={read.conversation} />
      ) : (
        <p data-testid="shared-unavailable" role="alert" className="text-sm text-muted-foreground">
          {read.kind === "busy"
            ? `Too many shared chats were opened from here just now. Try again in ${read.retryAfterSeconds ?? 60} seconds.`
            : "This shared chat can't be read right now. Try again in a little while."}
        </p>
      )}
      <footer className="mt-auto border-t border-border pt-4 text-[12px] text-muted-foreground">
        A copy of a chat as it was when its link was made. Answers can be wrong.
      </footer>
    </main>
  );
}
