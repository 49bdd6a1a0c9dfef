import type { SessionUser } from "@/lib/client/session-state";
import type { UsageSnapshot } from "@/lib/client/usage-headers";
import { BrandMark } from "./ui/brand-mark";
import { ghostButton } from "./ui/button-styles";
import { MenuIcon, PlusIcon, SettingsIcon, SignOutIcon } from "./ui/icons";
import { ThemeSelect } from "./ui/theme-select";
import { UsageMeter } from "./chat/usage-meter";

interface AppHeaderProps {
  user: SessionUser;
  /** The open conversation's title ("New chat" before its first message). */
  title: string;
  usage?: UsageSnapshot;
  onNewChat: () => void;
  /** Opens the conversation list (a drawer on narrow screens; wide screens show it as a sidebar). */
  onOpenConversations: () => void;
  /** The sidebar of a wide screen is hidden: the button to bring it back shows there too. */
  conversationsButtonOnWide?: boolean;
  onSignOut: () => void;
  /** Opens Chat settings (where chats are kept, instructions, shared links); from 640 px up (below, the drawer has it). */
  onSettings: () => void;
  /** The pointer or focus is on the settings button: a good moment to load the dialog's code. */
  onSettingsIntent?: () => void;
  signingOut: boolean;
  /** The plan badge: off for a Sign in with ChatGPT session, whose plan the app is not told. */
  showPlan?: boolean;
}

/** Signed-in header: the open conversation and New chat on the left; usage, account, theme and sign-out on the right. */
export function AppHeader({
  user,
  title,
  usage,
  onNewChat,
  onOpenConversations,
  conversationsButtonOnWide = false,
  onSignOut,
  onSettings,
  onSettingsIntent,
  signingOut,
  showPlan = true,
}: AppHeaderProps) {
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b border-border bg-background/90 px-3 backdrop-blur sm:px-5">
      {/* Never narrower than its buttons (only the title gives way): squeezed, New chat slid under the usage meter. */}
      <div className="flex items-center gap-2">
        <button
          type="button"
          data-testid="conversations-button"
          onClick={onOpenConversations}
          aria-label="Conversations"
          className={`${ghostButton} -ml-1 px-2 ${conversationsButtonOnWide ? "" : "lg:hidden"}`}
        >
          <MenuIcon className="size-5" />
        </button>
        <BrandMark className="size-7 shrink-0 max-sm:hidden" />
        <span data-testid="header-title" dir="auto" title={title} className="hidden min-w-0 max-w-[18rem] truncate text-[15px] font-semibold tracking-tight md:inline">
          {title}
        </span>
        <button type="button" data-testid="new-chat-button" onClick={onNewChat} className={`${ghostButton} ml-1 shrink-0 px-2.5 sm:px-3`}>
          <PlusIcon className="size-4" />
          <span className="max-[420px]:sr-only">New chat</span>
        </button>
      </div>
      {/* pl-2: at least 16 px between New chat and the usage meter, however full the header is. */}
      <div className="ml-auto flex min-w-0 items-center gap-2 pl-2 sm:gap-3">
        {usage && <UsageMeter usage={usage} />}
        <div className="flex min-w-0 items-center gap-1.5">
          {/* Below 640 px for screen readers only: a phone's header has room for a letter or two of it, which says nothing. */}
          <span data-testid="signed-in-email" className="inline-block max-w-[14rem] truncate text-[13px] text-foreground max-sm:sr-only" title={user.email}>
            {user.email}
          </span>
          {showPlan && (
            <span
              data-testid="signed-in-plan"
              className="shrink-0 rounded-full border border-border bg-muted px-2 py-0.5 text-[11px] font-semibold uppercase tracking-wide text-muted-foreground"
            >
              {user.plan}
            </span>
          )}
        </div>
        <ThemeSelect />
        <button
          type="button"
          data-testid="chat-settings-button"
          onClick={onSettings}
          onPointerEnter={onSettingsIntent}
          onFocus={onSettingsIntent}
          aria-haspopup="dialog"
          aria-label="Chat settings"
          title="Chat settings"
          className={`${ghostButton} px-2 max-sm:hidden`}
        >
          <SettingsIcon className="size-4" />
        </button>
        <button
          type="button"
          data-testid="sign-out-button"
          onClick={onSignOut}
          disabled={signingOut}
          className={`${ghostButton} px-2.5`}
          aria-label="Sign out"
        >
          <SignOutIcon className="size-4" />
          <span className="hidden lg:inline">Sign out</span>
        </button>
      </div>
    </header>
  );
}
