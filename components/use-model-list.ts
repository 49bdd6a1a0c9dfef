"use client";

import { useCallback, useEffect, useState } from "react";
import type { ProviderProxy } from "@/lib/client/provider-proxy";
import { isProviderProxyError } from "@/lib/client/provider-proxy-error";

export interface ModelList {
  models: string[];
  status: "loading" | "ready" | "error";
  error: string | null;
  retry: () => void;
}

/** Loads the account's model slugs once; a 401 means the session is gone, which the caller handles. */
export function useModelList(provider: ProviderProxy, onSignedOut: () => void): ModelList {
  const [models, setModels] = useState<string[]>([]);
  const [status, setStatus] = useState<ModelList["status"]>("loading");
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    provider
      .listModels({ signal: controller.signal })
      .then((list) => {
        setModels(list);
        setStatus("ready");
        setError(null);
      })
      .catch((caught: unknown) => {
        if (controller.signal.aborted) return;
        if (isProviderProxyError(caught) && caught.isSignedOut) {
          onSignedOut();
          return;
        }
        setStatus("error");
        setError(
          isProviderProxyError(caught)
            ? `Couldn't load your models: ${caught.message}`
            : "Couldn't load your models. Check your connection.",
        );
      });
    return () => controller.abort();
  }, [provider, onSignedOut, attempt]);

  const retry = useCallback(() => {
    setStatus("loading");
    setError(null);
    setAttempt((value) => value + 1);
  }, []);

  return { models, status, error, retry };
}
