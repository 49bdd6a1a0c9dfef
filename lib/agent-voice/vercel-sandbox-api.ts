import "server-only";
/**
 * How agent voice reaches the Vercel Sandbox API through `@vercel/sandbox`: the API's address and
 * the credentials, given to every static call of the SDK (`Sandbox.create({...vercelSandboxApi(…), …})`).
 *
 * - The SDK's base URL is fixed (`https://vercel.com/api`); its one seam is the `fetch` option,
 *   which every static call takes and the sandbox, session and command objects it returns keep.
 *   `LWC_VERCEL_SANDBOX_API_URL` points it elsewhere (a local fake, a proxy): the fetch given here
 *   rewrites that base onto it, and refuses any other URL, so nothing the SDK sends leaves for an
 *   address the configuration does not name.
 * - Credentials as the SDK takes them: `VERCEL_TOKEN` with `VERCEL_TEAM_ID` and `VERCEL_PROJECT_ID`
 *   (all three, passed on), or without `VERCEL_TOKEN` nothing, and the SDK uses Vercel's OIDC token
 *   (the request's `x-vercel-oidc-token` header on Vercel, or `VERCEL_OIDC_TOKEN`).
 */
import { DEFAULT_VERCEL_SANDBOX_API_URL } from "./defaults";

interface VercelSandboxApi {
  fetch: typeof fetch;
  token?: string;
  teamId?: string;
  projectId?: string;
}

/** A fetch for the SDK that sends what it addresses to `https://vercel.com/api/…` to `apiUrl/…` instead. */
export function vercelSandboxFetch(apiUrl: string, baseFetch: typeof fetch = globalThis.fetch): typeof fetch {
  const target = apiUrl.replace(/\/+$/, "");
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const rest = url.slice(DEFAULT_VERCEL_SANDBOX_API_URL.length);
    if (!url.startsWith(DEFAULT_VERCEL_SANDBOX_API_URL) || !(rest === "" || rest.startsWith("/") || rest.startsWith("?"))) {
      return Promise.reject(new Error(`the Vercel Sandbox client asked for an address outside the Sandbox API (${new URL(url).host})`));
    }
    return typeof input === "string" || input instanceof URL ? baseFetch(target + rest, init) : baseFetch(new Request(target + rest, input), init);
  };
}

/** Throws naming what is missing (never a value) when VERCEL_TOKEN comes without its team and project. */
export function vercelSandboxApi(apiUrl: string, env: Record<string, string | undefined>): VercelSandboxApi {
  const api = { fetch: vercelSandboxFetch(apiUrl) };
  const token = env.VERCEL_TOKEN?.trim();
  if (!token) return api;
  const missing = (["VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"] as const).filter((name) => !env[name]?.trim());
  if (missing.length > 0) throw new Error(`VERCEL_TOKEN is set without ${missing.join(" and ")}: the Sandbox API needs the token's team and project too`);
  return { ...api, token, teamId: env.VERCEL_TEAM_ID!.trim(), projectId: env.VERCEL_PROJECT_ID!.trim() };
}
