"use client";

import { ConversationFileTools } from "./conversation-file-tools";
import { ConversationList } from "./conversation-list";
import { SettingsIcon } from "../ui/icons";
import { TitleSetting } from "./title-setting";
import type { useConversationFiles } from "./use-conversation-files";
import type { Conversations } from "./use-conversations";
import type { GeneratedTitles } from "./use-generated-titles";

interface ConversationPanelProps {
  conversations: Conversations;
  files: ReturnType<typeof useConversationFiles>;
  titles: GeneratedTitles;
  onOpen: (id: string) => void;
  onNew: () => void;
  onSearch: () => void;
  /** The pointer is on its way to Search chats: its code starts loading. */
  onSearchIntent: () => void;
  /** Where the chats are kept, in one line. */
  storageNote?: string;
  /** Share a conversation (only where the server keeps chats). */
  onShare?: (id: string) => void;
  /** Opens Chat settings: a phone's header has no room for its button, so the drawer has one. */
  onSettings?: () => void;
}

/** The conversation list with Export all, Import and the title setting under it: the sidebar's and the drawer's content. */
export function ConversationPanel({ conversations, files, titles, onOpen, onNew, onSearch, onSearchIntent, storageNote, onShare, onSettings }: ConversationPanelProps) {
  return (
    <ConversationList
      conversations={conversations.list}
      activeId={conversations.active?.saved ? conversations.active.id : null}
      actions={{
        onOpen,
        onRename: conversations.rename,
        onOrganise: conversations.organise,
        onDelete: conversations.remove,
        onExport: (id, kind) => void files.exportOne(id, kind),
        onShare,
      }}
      onNew={onNew}
      onSearch={onSearch}
      onSearchIntent={onSearchIntent}
      tools={
        <>
          <ConversationFileTools
            onExportAll={() => void files.exportAll()}
            onImport={(file) => void files.importFile(file)}
            notice={files.notice}
            onDismissNotice={files.dismissNotice}
            canExport={conversations.list.length > 0}
          />
          <TitleSetting on={titles.enabled} onChange={titles.setEnabled} />
          {onSettings && (
            <button
              type="button"
              data-testid="drawer-settings-button"
              onClick={onSettings}
              aria-haspopup="dialog"
              className="mx-2 mb-1.5 inline-flex h-8 items-center justify-center gap-1.5 rounded-lg text-[13px] text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring sm:hidden"
            >
              <SettingsIcon className="size-3.5" />
              Chat settings
            </button>
          )}
        </>
      }
      persistent={conversations.persistent}
      storageNote={storageNote}
    />
  );
}
