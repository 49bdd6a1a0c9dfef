"use client";

import { useCallback, useState } from "react";

/** Where the conversation list is a sidebar beside the chat rather than a drawer (Tailwind's lg). */
const WIDE_SCREEN_QUERY = "(min-width: 1024px)";

/** Where the conversation list is: a sidebar on wide screens (which can be hidden), a drawer on narrow ones. */
export function useConversationPanel() {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [sidebarHidden, setSidebarHidden] = useState(false);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);
  const wideScreen = () => window.matchMedia(WIDE_SCREEN_QUERY).matches;
  return {
    drawerOpen,
    sidebarHidden,
    closeDrawer,
    /** The list, where it is on this screen. */
    show: () => (wideScreen() ? setSidebarHidden(false) : setDrawerOpen(true)),
    toggle: () => (wideScreen() ? setSidebarHidden((hidden) => !hidden) : setDrawerOpen((open) => !open)),
  };
}
