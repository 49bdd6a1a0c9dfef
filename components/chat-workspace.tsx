"use client";

import { lazy, Suspense, useCallback, useEffect, useMemo, useState, useSyncExternalStore, type Ref } from "react";
import type { ChatErrorInfo } from "@/lib/client/chat-error";
import type { ChatUIMessage } from "@/lib/client/chat-turns";
import { createConversationInbox } from "@/lib/client/conversation-inbox";
import { createProviderProxy } from "@/lib/client/provider-proxy";
import { ProxyChatTransport } from "@/lib/client/proxy-chat-transport";
import { emptyResponseMetadata } from "@/lib/client/response-metadata-store";
import type { SessionUser, SiwcSessionInfo } from "@/lib/client/session-state";
import { AppHeader } from "./app-header";
import { ghostButton } from "./ui/button-styles";
import { ConversationDrawer } from "./conversations/conversation-drawer";
import { ConversationFileTools } from "./conversations/conversation-file-tools";
import { ConversationList } from "./conversations/conversation-list";
import { ChatSetupProvider, type ChatSetup } from "./chat/chat-context";
import { ConversationView } from "./chat/conversation-view";
import { FallbackNotice } from "./chat/fallback-notice";
import { FastToggle } from "./chat/fast-toggle";
import { ImageModeToggle } from "./chat/image-mode-toggle";
import { WebSearchToggle } from "./chat/web-search-toggle";
import { ModelPicker } from "./chat/model-picker";
import { PlanNoticeDialog } from "./chat/plan-notice-dialog";
import { PlanUsageIndicator, PlanUsageOff } from "./chat/plan-usage";
import { ReasoningEffortSelect } from "./chat/reasoning-effort-select";
import { SignOutDialog } from "./sign-in/sign-out-dialog";
import { UndoToasts } from "./conversations/undo-toasts";
import { useChatSettings } from "./chat/use-chat-settings";
import { useConversationFiles } from "./conversations/use-conversation-files";
import { useConversations } from "./conversations/use-conversations";
import { KeyboardShortcutsDialog } from "./keyboard-shortcuts-dialog";
import { useKeyboardShortcuts } from "./use-keyboard-shortcuts";
import { useModelList } from "./chat/use-model-list";
import { useSearchShortcut } from "./conversations/use-search-shortcut";
import { VoiceButton } from "./voice/voice-button";
import { VoiceDialog } from "./voice/voice-dialog";
import { transcriptToMessages } from "@/lib/client/realtime-chat-messages";

// The search (with its index library) loads when first wanted, not with the chat.
const loadSearchDialog = () => import("./conversations/conversation-search-dialog");
const ConversationSearchDialog = lazy(loadSearchDialog);
const CHAT_HEADING_ID = "chat-heading";
const NEW_CHAT_TITLE = "New chat";

/** Where the conversation list is a sidebar beside the chat rather than a drawer (Tailwind's lg). */
const WIDE_SCREEN_QUERY = "(min-width: 1024px)";

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
  /**
   * Signed in with ChatGPT (SIWC): plan usage and the one-time notice. Such a session has no voice,
   * agent voice or pictures, and chats only with plan usage granted.
   */
  siwc?: SiwcSessionInfo | null;
  /** "Got it" on the one-time plan notice. */
  onDismissPlanNotice?: () => void;
  /** "Enable plan usage": Continue with ChatGPT again, asking for plan usage. */
  onEnablePlanUsage?: () => void;
  /** The page is on its way to ChatGPT. */
  redirecting?: boolean;
}

/** Why a SIWC session's chat has no voice and no pictures, in one line. */
const SIWC_LIMITS_NOTE = "Voice, agent voice and pictures aren't available with Continue with ChatGPT. Answers can be wrong.";

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
  siwc = null,
  onDismissPlanNotice = () => {},
  onEnablePlanUsage = () => {},
  redirecting = false,
}: ChatWorkspaceProps) {
  const provider = useMemo(() => createProviderProxy(), []);
  const transport = useMemo(() => new ProxyChatTransport({ provider }), [provider]);
  const modelList = useModelList(provider, onSessionLost);
  const settings = useChatSettings(modelList.models);
  const conversations = useConversations(user.accountId);
  const files = useConversationFiles(conversations);
  const metadata = useSyncExternalStore(
    provider.responseMetadata.subscribe,
    provider.responseMetadata.getSnapshot,
    emptyResponseMetadata,
  );
  const [dismissedFallbackReply, setDismissedFallbackReply] = useState(-1);
  const [latestFailure, setLatestFailure] = useState<ChatErrorInfo | undefined>(undefined);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);
  const [sidebarHidden, setSidebarHidden] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [signOutAsked, setSignOutAsked] = useState(false);
  const [imageMode, setImageMode] = useState(false);
  // Off by default; while on, every message may search the web.
  const [webSearch, setWebSearch] = useState(false);
  const searchOn = webSearchAvailable && webSearch;
  const current = settings.current;
  // Signed in with ChatGPT without plan usage, nothing may be sent (the server would refuse it).
  const chatOff = siwc !== null && !siwc.planUsage;
  const callSettings = useMemo(() => (chatOff ? null : current && searchOn ? { ...current, webSearch: true } : current), [chatOff, current, searchOn]);
  const [voiceOpen, setVoiceOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  // Commands for the open conversation: a search result's message to show, a voice call's transcript.
  const [inbox] = useState(createConversationInbox);

  const showFallback = Boolean(metadata.serviceTierFallback) && metadata.replyCount !== dismissedFallbackReply;
  // One source of truth for the reset time: while the latest turn failed on the usage limit, the
  // meter shows the reset that failure reported, the same one the alert shows.
  const limitResetsAt = latestFailure?.code === "usage_limit" ? latestFailure.usageLimit?.resetsAt : undefined;
  const usage =
    limitResetsAt === undefined
      ? metadata.usage
      : { ...metadata.usage, primary: { usedPercent: 100, windowMinutes: metadata.usage?.primary?.windowMinutes, resetsAt: limitResetsAt } };

  // A turn refused as signed out means the login is gone: re-read the session, which brings up the
  // sign-in screen with the reason (the conversation stays in this browser).
  const onLatestFailure = useCallback(
    (failure: ChatErrorInfo | undefined) => {
      setLatestFailure(failure);
      if (failure?.code === "not_authenticated") onSessionLost();
    },
    [onSessionLost],
  );

  // Signed in, the header and the tab name the open conversation (the sign-in screen's title comes back on sign-out).
  const title = conversations.list.find((conversation) => conversation.id === conversations.active?.id)?.title ?? NEW_CHAT_TITLE;
  useEffect(() => {
    const previous = document.title;
    document.title = title;
    return () => {
      document.title = previous;
    };
  }, [title]);

  const { startNew, open } = conversations;
  const newChat = useCallback(
    (carried?: ChatUIMessage[], draft?: string) => {
      startNew(carried, draft);
      inbox.clear();
      setLatestFailure(undefined);
      setDrawerOpen(false);
      provider.responseMetadata.clearFallback();
    },
    [inbox, provider, startNew],
  );
  const openConversation = (id: string) => {
    open(id);
    inbox.clear();
    inbox.post(id, { type: "show-message", messageId: null });
    setDrawerOpen(false);
  };

  const openSearch = useCallback(() => {
    setDrawerOpen(false);
    setSearchOpen(true);
  }, []);
  useSearchShortcut(openSearch);
  const openSearchResult = (conversationId: string, messageId: string | null) => {
    setSearchOpen(false);
    open(conversationId);
    inbox.clear();
    inbox.post(conversationId, { type: "show-message", messageId });
  };

  /** The conversation list: the sidebar on wide screens, the drawer on narrow ones. */
  const wideScreen = () => window.matchMedia(WIDE_SCREEN_QUERY).matches;
  const openConversations = () => (wideScreen() ? setSidebarHidden(false) : setDrawerOpen(true));
  const toggleConversations = () => (wideScreen() ? setSidebarHidden((hidden) => !hidden) : setDrawerOpen((open) => !open));
  useKeyboardShortcuts({
    "new-chat": () => newChat(),
    // Ctrl/⌘+K belongs to the conversation search, which listens for it itself.
    search: undefined,
    "toggle-sidebar": toggleConversations,
    "show-shortcuts": () => setShortcutsOpen(true),
  });

  const signOutAndForget = async () => {
    setSignOutAsked(false);
    await conversations.forgetThisDevice();
    onSignOut();
  };

  const placeholder = chatOff
    ? "Chat is off until plan usage is enabled"
    : modelList.status === "loading"
      ? "Loading models…"
      : modelList.status === "error"
        ? "Models couldn't be loaded"
        : modelList.models.length === 0
          ? "No models are available for this account"
          : "Ask anything";

  const list = (
    <ConversationList
      conversations={conversations.list}
      activeId={conversations.active?.saved ? conversations.active.id : null}
      onOpen={openConversation}
      onNew={() => newChat()}
      onRename={conversations.rename}
      onDelete={conversations.remove}
      onExport={(id, kind) => void files.exportOne(id, kind)}
      onSearch={openSearch}
      onSearchIntent={() => void loadSearchDialog()}
      tools={
        <ConversationFileTools
          onExportAll={() => void files.exportAll()}
          onImport={(file) => void files.importFile(file)}
          notice={files.notice}
          onDismissNotice={files.dismissNotice}
          canExport={conversations.list.length > 0}
        />
      }
      persistent={conversations.persistent}
    />
  );

  const notices = (
    <>
      {chatOff && <PlanUsageOff onEnable={onEnablePlanUsage} redirecting={redirecting} />}
      {showFallback && <FallbackNotice onDismiss={() => setDismissedFallbackReply(metadata.replyCount)} />}
      {/* Without plan usage the list is refused too; the line above already says why. */}
      {modelList.error && !chatOff && (
        <div role="alert" data-testid="models-error" className="flex items-center justify-between gap-3 rounded-xl bg-destructive-soft px-3.5 py-2 text-[13px] text-foreground">
          <span>{modelList.error}</span>
          <button type="button" onClick={modelList.retry} className={`${ghostButton} h-7 text-foreground`}>
            Retry
          </button>
        </div>
      )}
      {sessionError && (
        <p role="alert" className="rounded-xl bg-destructive-soft px-3.5 py-2 text-[13px] text-foreground">
          {sessionError}
        </p>
      )}
    </>
  );

  const controls = (
    <>
      <ModelPicker models={modelList.models} value={settings.model} onChange={settings.setModel} loading={modelList.status === "loading"} />
      {siwc?.planUsage && <PlanUsageIndicator />}
      <ReasoningEffortSelect value={settings.reasoningEffort} efforts={settings.efforts} onChange={settings.setReasoningEffort} />
      {settings.fastAvailable && <FastToggle checked={settings.fast} onChange={settings.setFast} />}
      {!siwc && <ImageModeToggle checked={imageMode} onChange={setImageMode} />}
      {webSearchAvailable && <WebSearchToggle checked={webSearch} onChange={setWebSearch} />}
      {!siwc && <VoiceButton onClick={() => setVoiceOpen(true)} />}
    </>
  );

  const setup: ChatSetup = {
    transport,
    callSettings,
    model: { imagesAllowed: settings.imagesAccepted, name: modelList.models.find((model) => model.slug === settings.model)?.displayName ?? settings.model },
    imageMode: !siwc && imageMode,
    onImageModeUsed: () => setImageMode(false),
    picturesAvailable: !siwc,
    footnote: siwc ? SIWC_LIMITS_NOTE : undefined,
    placeholder,
    persistence: conversations.persistence,
    inbox,
    onLatestFailureChange: onLatestFailure,
    onNewChatWith: newChat,
    onSignInAgain,
  };

  const active = conversations.active;
  return (
    <div className="flex h-dvh flex-col">
      <AppHeader
        user={user}
        title={title}
        usage={usage}
        onNewChat={() => newChat()}
        onOpenConversations={openConversations}
        conversationsButtonOnWide={sidebarHidden}
        onSignOut={() => setSignOutAsked(true)}
        signingOut={signingOut}
        showPlan={!siwc}
      />
      <PlanNoticeDialog open={Boolean(siwc?.showPlanNotice)} onDismiss={onDismissPlanNotice} />
      <SignOutDialog
        open={signOutAsked}
        onCancel={() => setSignOutAsked(false)}
        onSignOut={() => {
          setSignOutAsked(false);
          onSignOut();
        }}
        onSignOutAndForget={() => void signOutAndForget()}
      />

      <div className="flex min-h-0 flex-1">
        <aside
          data-testid="sidebar"
          className={`hidden w-72 shrink-0 flex-col border-r border-border bg-background ${sidebarHidden ? "" : "lg:flex"}`}
        >
          {list}
        </aside>
        {drawerOpen && <ConversationDrawer onClose={closeDrawer}>{list}</ConversationDrawer>}

        <main className="flex min-h-0 min-w-0 flex-1 flex-col">
          <h1 ref={headingRef} id={CHAT_HEADING_ID} tabIndex={-1} className="sr-only">
            Chat
          </h1>
          {active ? (
            <ChatSetupProvider value={setup}>
              <ConversationView key={active.id} conversation={active} controls={controls} notices={notices} />
            </ChatSetupProvider>
          ) : (
            <div role="status" className="flex flex-1 items-center justify-center text-sm text-muted-foreground">
              Loading conversations…
            </div>
          )}
        </main>
      </div>
      {searchOpen && (
        <Suspense fallback={null}>
          <ConversationSearchDialog
            accountId={user.accountId}
            loadConversations={conversations.readAll}
            onOpen={openSearchResult}
            onClose={() => setSearchOpen(false)}
          />
        </Suspense>
      )}
      <UndoToasts
        deletions={conversations.pendingDeletions}
        onUndo={conversations.undoRemove}
        onFocusLost={() => document.getElementById(CHAT_HEADING_ID)?.focus()}
      />
      <KeyboardShortcutsDialog open={shortcutsOpen} onClose={() => setShortcutsOpen(false)} />
      {voiceOpen && !siwc && (
        <VoiceDialog
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
