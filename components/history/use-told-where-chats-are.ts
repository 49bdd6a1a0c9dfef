"use client";

import { useCallback, useState } from "react";
import { rememberToldWhereChatsAre, wasToldWhereChatsAre } from "@/lib/client/history-choice";

/** Whether this browser's person has seen the line saying where chats are kept (its first chat was sent, or it was dismissed). */
export function useToldWhereChatsAre(accountId: string): { told: boolean; remember: () => void } {
  const [told, setTold] = useState(() => wasToldWhereChatsAre(accountId));
  const remember = useCallback(() => {
    rememberToldWhereChatsAre(accountId);
    setTold(true);
  }, [accountId]);
  return { told, remember };
}
