"use client";

import { useCallback, useEffect, useState } from "react";
import type { ModelDetails } from "@/lib/client/provider-proxy";
import type { ProxyClient } from "@/lib/client/proxy-client";
import { isProviderProxyError, type ProviderProxyError } from "@/lib/client/provider-proxy-error";

/**
 * Names the problem without repeating the server's detail, which for an outage can carry the
 * provider's internal address.
 */
function describeModelsFailure(error: ProviderProxyError): string {
  if (error.code === "network_error") return "Couldn't load your models: the model service can't be reached right now.";
  if (error.code === "models_request_failed" || error.status >= 500) {
    return `Couldn't load your models: the model service is having trouble (status ${error.status}).`;
  }
  if (error.code === "rate_limited") return "Couldn't load your models: too many requests. Try again in a minute.";
  return `Couldn't load your models (${error.code}).`;
}

export interface ModelList {
  /** The account's models with what the UI needs about each (names, efforts, tiers, inputs). */
  models: ModelDetails[];
  status: "loading" | "ready" | "error";
  error: string | null;
  retry: () => void;
}

/** Loads the account's models once; a 401 means the session is gone, which the caller handles. */
export function useModelList(client: ProxyClient, onSignedOut: () => void): ModelList {
  const [models, setModels] = useState<ModelDetails[]>([]);
  const [status, setStatus] = useState<ModelList["status"]>("loading");
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    client
      .listModelDetails({ signal: controller.signal })
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
        setError(isProviderProxyError(caught) ? describeModelsFailure(caught) : "Couldn't load your models. Check your connection.");
      });
    return () => controller.abort();
  }, [client, onSignedOut, attempt]);

  const retry = useCallback(() => {
    setStatus("loading");
    setError(null);
    setAttempt((value) => value + 1);
  }, []);

  return { models, status, error, retry };
}
