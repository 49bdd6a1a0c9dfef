"use client";

// First: zod must be told before the AI SDK's modules below build their schemas.
import "@/lib/client/zod-without-eval";
import { lazy, Suspense, useCallback, useState, type Ref } from "react";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import { createConversationInbox } from "@/lib/client/conversation-inbox";
import { transcriptToMessages } from "@/lib/client/realtime-chat-messages";
import { capabilitiesOf, type SessionCapabilities, type SessionUser, type SiwcSessionInfo } from "@/lib/client/session-state";
import { AppHeader } from "./app-header";
import { ChatArea } from "./chat/chat-area";
import { PlanNoticeDialog } from "./chat/plan-notice-dialog";
import { useChatCalls } from "./chat/use-chat-calls";
import { ConversationDrawer } from "./conversations/conversation-drawer";
import { ConversationPanel } from "./conversations/conversation-panel";
import { preloadSearch, SearchOnDemand } from "./conversations/search-on-demand";
import { UndoToasts } from "./conversations/undo-toasts";
import { useConversationFiles } from "./conversations/use-conversation-files";
import { useConversationPanel } from "./conversations/use-conversation-panel";
import { useConversations } from "./conversations/use-conversations";
import { useGeneratedTitles } from "./conversations/use-generated-titles";
import { useDocumentTitle } from "./conversations/use-document-title";
import { useSearchShortcut } from "./conversations/use-search-shortcut";
import { WorkspaceHistoryNotice } from "./history/history-notice";
import { useHistorySync } from "./history/use-history-sync";
import { usePersistentStorage } from "./history/use-persistent-storage";
import { useToldWhereChatsAre } from "./history/use-told-where-chats-are";
import { KeyboardShortcutsDialog } from "./keyboard-shortcuts-dialog";
import { WorkspaceSignOut } from "./sign-in/workspace-sign-out";
import { useKeyboardShortcuts } from "./use-keyboard-shortcuts";
import { VoiceOnDemand } from "./voice/voice-on-demand";

// Chat settings and Share load when first wanted, not with the chat.
const loadSettingsDialog = () => import("./history/history-settings-dialog");
const HistorySettingsDialog = lazy(loadSettingsDialog);
const ShareDialog = lazy(() => import("./history/share-dialog"));

/** Where the list says the chats are kept. */
const STORAGE_NOTES = {
  server: "Kept on the server and in this browser: every device you sign in from shows them.",
  device: "Kept in this browser only: you chose to keep chats on this device.",
  browser: "Kept in this browser only, never on the server.",
} as const;
const CHAT_HEADING_ID = "chat-heading";
const NEW_CHAT_TITLE = "New chat";

interface ChatWorkspaceProps {
  user: SessionUser;
  onSignOut: () => void;
  onSignInAgain: () => void;
  /** Called when the server says the session is gone (401 on /models), to re-read it. */
  onSessionLost: () => void;
  signingOut: boolean;
  sessionError: string | null;
  /** The (visually hidden) heading; focus moves here when a screen change would otherwise drop it. */
  headingRef?: Ref<HTMLHeadingElement>;
  /** False with LWC_WEB_SEARCH=off: no "Search the web" switch. */
  webSearchAvailable?: boolean;
  /** What the session may do besides chat: voice, agent voice, pictures (all, when not given). */
  capabilities?: SessionCapabilities;
  /** Signed in with ChatGPT (SIWC): plan usage and the one-time notice; it chats only with plan usage granted. */
  siwc?: SiwcSessionInfo | null;
  /** "Got it" on the one-time plan notice. */
  onDismissPlanNotice?: () => void;
  /** "Enable plan usage": Continue with ChatGPT again, asking for plan usage. */
  onEnablePlanUsage?: () => void;
  /** The page is on its way to ChatGPT. */
  redirecting?: boolean;
  /** Where the server keeps chats (the session's `history`); absent: it does not say (the browser keeps them). */
  history?: "server" | "browser";
}

/** The signed-in screen: header, conversation list, the open conversation and its model controls. */
export function ChatWorkspace({
  user,
  onSignOut,
  onSignInAgain,
  onSessionLost,
  signingOut,
  sessionError,
  headingRef,
  webSearchAvailable = true,
  capabilities = capabilitiesOf(null),
  siwc = null,
  onDismissPlanNotice = () => {},
  onEnablePlanUsage = () => {},
  redirecting = false,
  history: serverHistory,
}: ChatWorkspaceProps) {
  // Commands for the open conversation: a search result's message to show, a voice call's transcript, changes made elsewhere.
  const [inbox] = useState(createConversationInbox);
  const history = useHistorySync(user.accountId, serverHistory);
  const conversations = useConversations(user.accountId, history, inbox);
  const calls = useChatCalls({ siwc, webSearchAvailable, onSessionLost, conversationId: conversations.active?.id });
  const titles = useGeneratedTitles({ models: calls.modelList.models, chatOff: calls.chatOff, conversations });
  const persisted = usePersistentStorage();
  const told = useToldWhereChatsAre(user.accountId);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [sharing, setSharing] = useState<{ id: string; title: string; leafId?: string } | null>(null);
  const files = useConversationFiles(conversations);
  const panel = useConversationPanel();
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [signOutAsked, setSignOutAsked] = useState(false);
  const [voiceOpen, setVoiceOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);

  // Signed in, the header and the tab name the open conversation (the sign-in screen's title comes back on sign-out).
  const title = conversations.list.find((conversation) => conversation.id === conversations.active?.id)?.title ?? NEW_CHAT_TITLE;
  useDocumentTitle(title);

  const { startNew, open } = conversations;
  const { closeDrawer } = panel;
  const { forgetLatest } = calls;
  const newChat = useCallback(
    (carried?: ChatUIMessage[], draft?: string) => {
      startNew(carried, draft);
      inbox.clear();
      forgetLatest();
      closeDrawer();
    },
    [closeDrawer, forgetLatest, inbox, startNew],
  );
  const openConversation = (id: string, messageId: string | null = null) => {
    open(id);
    inbox.clear();
    inbox.post(id, { type: "show-message", messageId });
    closeDrawer();
  };

  const openSearch = useCallback(() => {
    closeDrawer();
    setSearchOpen(true);
  }, [closeDrawer]);
  useSearchShortcut(openSearch);
  useKeyboardShortcuts({
    "new-chat": () => newChat(),
    // Ctrl/⌘+K belongs to the conversation search, which listens for it itself.
    search: undefined,
    "toggle-sidebar": panel.toggle,
    "show-shortcuts": () => setShortcutsOpen(true),
  });

  const titleOf = (id: string) => conversations.list.find((conversation) => conversation.id === id)?.title ?? "A deleted chat";
  const share = (id: string) => {
    closeDrawer();
    void conversations.read(id).then((found) => setSharing({ id, title: found?.title ?? titleOf(id), leafId: found?.messages.at(-1)?.id }));
  };
  const list = (
    <ConversationPanel
      conversations={conversations}
      files={files}
      titles={titles}
      onOpen={(id) => openConversation(id)}
      onNew={() => newChat()}
      onSearch={openSearch}
      onSearchIntent={preloadSearch}
      storageNote={STORAGE_NOTES[history.place]}
      onShare={history.place === "server" ? share : undefined}
      onSettings={() => {
        closeDrawer();
        setSettingsOpen(true);
      }}
    />
  );
  const active = conversations.active;
  return (
    <div className="flex h-dvh flex-col">
      <AppHeader
        user={user}
        title={title}
        usage={calls.usage}
        onNewChat={() => newChat()}
        onOpenConversations={panel.show}
        conversationsButtonOnWide={panel.sidebarHidden}
        onSignOut={() => setSignOutAsked(true)}
        onSettings={() => setSettingsOpen(true)}
        onSettingsIntent={() => void loadSettingsDialog()}
        signingOut={signingOut}
        showPlan={!siwc}
      />
      <PlanNoticeDialog open={Boolean(siwc?.showPlanNotice)} onDismiss={onDismissPlanNotice} />
      <WorkspaceSignOut
        open={signOutAsked}
        onClose={() => setSignOutAsked(false)}
        accountId={user.accountId}
        history={history}
        conversationCount={conversations.list.length}
        forgetThisDevice={conversations.forgetThisDevice}
        exportAll={files.exportAll}
        onSignOut={onSignOut}
      />

      <div className="flex min-h-0 flex-1">
        <aside data-testid="sidebar" className={`hidden w-72 shrink-0 flex-col border-r border-border bg-background ${panel.sidebarHidden ? "" : "lg:flex"}`}>
          {list}
        </aside>
        {panel.drawerOpen && <ConversationDrawer onClose={closeDrawer}>{list}</ConversationDrawer>}

        <main className="flex min-h-0 min-w-0 flex-1 flex-col">
          <h1 ref={headingRef} id={CHAT_HEADING_ID} tabIndex={-1} className="sr-only">
            Chat
          </h1>
          <ChatArea
            conversation={active}
            calls={calls}
            persistence={conversations.persistence}
            inbox={inbox}
            capabilities={capabilities}
            siwc={siwc}
            webSearchAvailable={webSearchAvailable}
            sessionError={sessionError}
            onEnablePlanUsage={onEnablePlanUsage}
            redirecting={redirecting}
            onNewChatWith={newChat}
            onSignInAgain={onSignInAgain}
            onVoice={() => setVoiceOpen(true)}
            onSent={told.remember}
            historyNotice={<WorkspaceHistoryNotice history={history} told={told} />}
            onFirstAnswer={titles.afterFirstAnswer}
          />
        </main>
      </div>
      {searchOpen && (
        <SearchOnDemand
          accountId={user.accountId}
          loadConversations={conversations.readAll}
          onOpen={(conversationId, messageId) => {
            setSearchOpen(false);
            openConversation(conversationId, messageId);
          }}
          onClose={() => setSearchOpen(false)}
        />
      )}
      {settingsOpen && (
        <Suspense fallback={null}>
          <HistorySettingsDialog history={history} serverHistory={serverHistory === "server"} persisted={persisted} titleOf={titleOf} onClose={() => setSettingsOpen(false)} />
        </Suspense>
      )}
      {sharing && (
        <Suspense fallback={null}>
          <ShareDialog history={history} conversationId={sharing.id} title={sharing.title} leafId={sharing.leafId} onClose={() => setSharing(null)} />
        </Suspense>
      )}
      <UndoToasts deletions={conversations.pendingDeletions} onUndo={conversations.undoRemove} onFocusLost={() => document.getElementById(CHAT_HEADING_ID)?.focus()} />
      <KeyboardShortcutsDialog open={shortcutsOpen} onClose={() => setShortcutsOpen(false)} />
      {voiceOpen && capabilities.voice && (
        <VoiceOnDemand
          agentVoice={capabilities.agentVoice}
          onClose={() => setVoiceOpen(false)}
          onTranscript={(lines, actions) => {
            if (active) inbox.post(active.id, { type: "append", messages: transcriptToMessages(lines, String(Date.now()), actions) });
          }}
          onSignInAgain={onSignInAgain}
        />
      )}
    </div>
  );
}
