"use client";

import type { HistoryPlace } from "@/lib/client/history-choice";
import { ghostButton } from "../ui/button-styles";
import type { HistorySync, SyncNote } from "./use-history-sync";

const WHERE: Record<HistoryPlace, string> = {
  server: "Your chats are kept on this server, so they follow you to every device you sign in from.",
  device: "Your chats stay in this browser on this device: you chose not to keep them on the server.",
  browser: "Your chats stay in this browser on this device: this server keeps none.",
};

/** Where chats are kept, in one line (from Chat settings too): the words the notice and the settings share. */
export function whereChatsAre(place: HistoryPlace): string {
  return WHERE[place];
}

interface HistoryNoticeProps {
  place: HistoryPlace;
  /** The one line of the first chat after sign-in is due. */
  tell: boolean;
  onKeepHere: () => void;
  onDismiss: () => void;
  note: SyncNote;
  onDismissNote: () => void;
}

/**
 * Above the message box: in the first chat after sign-in, one line saying where chats are kept,
 * with the way to keep them on this device only; and what the sync has to say (the first upload,
 * messages the server would not take, a full quota).
 */
function HistoryNotice({ place, tell, onKeepHere, onDismiss, note, onDismissNote }: HistoryNoticeProps) {
  const said = [
    note.uploaded > 0 ? `${note.uploaded === 1 ? "1 chat" : `${note.uploaded} chats`} from this browser ${note.uploaded === 1 ? "is" : "are"} now kept on the server too.` : "",
    note.notKept > 0 ? `${note.notKept === 1 ? "1 message" : `${note.notKept} messages`} could not be kept on the server (too large or unreadable) and stay${note.notKept === 1 ? "s" : ""} on this device only.` : "",
    note.quotaFull ? "Your space on the server is full: new messages stay on this device until you delete some chats." : "",
  ].filter(Boolean);
  if (!tell && said.length === 0) return null;
  return (
    <div className="flex flex-col gap-1.5">
      {tell && (
        <div data-testid="history-notice" data-place={place} role="status" className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded-xl border border-border bg-muted/50 px-3 py-1.5 text-[13px] text-muted-foreground">
          {/* At least 14rem wide: on a phone the buttons go under the sentence rather than squeeze it. */}
          <span className="min-w-[14rem] flex-1">{WHERE[place]}</span>
          {place === "server" && (
            <button type="button" data-testid="history-keep-here" onClick={onKeepHere} className={`${ghostButton} h-7 px-2 text-[13px] text-foreground`}>
              Keep on this device only
            </button>
          )}
          <button type="button" data-testid="history-notice-dismiss" onClick={onDismiss} className={`${ghostButton} h-7 px-2 text-[13px]`}>
            OK
          </button>
        </div>
      )}
      {said.length > 0 && (
        <div data-testid="history-sync-note" role="status" className="flex flex-wrap items-center gap-2 rounded-xl border border-border px-3 py-1.5 text-[13px] text-muted-foreground">
          <span className="min-w-[14rem] flex-1">{said.join(" ")}</span>
          <button type="button" onClick={onDismissNote} className={`${ghostButton} h-7 px-2 text-[13px]`}>
            OK
          </button>
        </div>
      )}
    </div>
  );
}

/** The notice for the workspace: the sync's place and note, and whether the one line was said. */
export function WorkspaceHistoryNotice({ history, told }: { history: HistorySync; told: { told: boolean; remember: () => void } }) {
  return (
    <HistoryNotice
      place={history.place}
      tell={!told.told}
      onKeepHere={() => {
        history.choosePlace("device");
        told.remember();
      }}
      onDismiss={told.remember}
      note={history.note}
      onDismissNote={history.dismissNote}
    />
  );
}
