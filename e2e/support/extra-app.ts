import { startNextServer, type NextServer } from "../../test-support/next-server";
import { E2E_RATE_LIMIT_PER_MINUTE, E2E_SESSION_SECRET, MOCK_UPSTREAM_URL } from "./servers";

/**
 * A second `next start` for specs that need the app configured differently from the suite's main
 * server (another base path, the model proxy off). Same mock, same settings otherwise; a free port.
 */
export function startExtraApp(env: Record<string, string>): Promise<NextServer> {
  return startNextServer({
    LWC_ISSUER_URL: MOCK_UPSTREAM_URL,
    LWC_CODEX_BASE_URL: `${MOCK_UPSTREAM_URL}/backend-api/codex`,
    LWC_SECRET: E2E_SESSION_SECRET,
    LWC_ALLOW_MEMORY_STORE: "1",
    LWC_RATE_LIMIT_PER_MINUTE: String(E2E_RATE_LIMIT_PER_MINUTE),
    LWC_LOGIN_RATE_LIMIT_PER_MINUTE: "1000",
    LWC_LOGIN_GLOBAL_RATE_LIMIT_PER_MINUTE: "1000",
    ...env,
  });
}
