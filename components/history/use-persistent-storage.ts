"use client";

import { useEffect, useState } from "react";

/**
 * Asks the browser to keep this site's storage (navigator.storage.persist()), once per page: without
 * it a browser may clear the chats it keeps when space runs low (Safari after 7 days without a
 * visit). Whether it agreed; null until it answered, or where it cannot be asked.
 */
export function usePersistentStorage(): boolean | null {
  const [persisted, setPersisted] = useState<boolean | null>(null);
  useEffect(() => {
    const storage = typeof navigator === "undefined" ? undefined : navigator.storage;
    if (!storage?.persist || !storage.persisted) return;
    let cancelled = false;
    storage
      .persisted()
      .then((already) => already || storage.persist())
      .then(
        (granted) => {
          if (!cancelled) setPersisted(granted);
        },
        () => undefined,
      );
    return () => {
      cancelled = true;
    };
  }, []);
  return persisted;
}
