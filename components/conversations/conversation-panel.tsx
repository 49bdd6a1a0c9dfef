"use client";

import { ConversationFileTools } from "./conversation-file-tools";
import { ConversationList } from "./conversation-list";
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
}

/** The conversation list with Export all, Import and the title setting under it: the sidebar's and the drawer's content. */
export function ConversationPanel({ conversations, files, titles, onOpen, onNew, onSearch, onSearchIntent }: ConversationPanelProps) {
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
        </>
      }
      persistent={conversations.persistent}
    />
  );
}
