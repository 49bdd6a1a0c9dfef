import { API_ROUTE_FOLDER } from "./shared/base-path";

/**
 * What lets LWC_API_BASE_PATH move the API with the route files left in one folder: next.config.ts
 * asks Next for this rewrite from the configured path onto app/api/provider. Next puts it under
 * LWC_BASE_PATH itself and applies it before its dynamic routes, so `/api/chatgpt/responses` reaches
 * the static `responses` route (the streaming fast path) and the rest the `[...path]` catch-all. The
 * handler still sees the requested URL and answers only below the configured path: the folder's own
 * `/api/provider/…` then answers 404. No rewrite (no cost) at the default path.
 */
export function apiRewrites(apiBasePath: string): { source: string; destination: string }[] {
  if (apiBasePath === API_ROUTE_FOLDER) return [];
  return [{ source: `${apiBasePath}/:path+`, destination: `${API_ROUTE_FOLDER}/:path+` }];
}

/**
 * Sign in with ChatGPT's callback must be `/auth/callback` at the site's root, whatever
 * LWC_BASE_PATH is. Under a basePath Next serves nothing outside it, and a rewrite out of it may
 * only point to another site, so one redirect (outside the basePath: `basePath: false`; temporary,
 * the query passed on as Next does) sends the browser to the route file app/auth/callback at
 * `{LWC_BASE_PATH}/auth/callback`. The handler sees `/auth/callback` either way. None at the root.
 */
export function callbackRedirects(appBasePath: string): { source: string; destination: string; basePath: false; permanent: false }[] {
  if (appBasePath === "") return [];
  return [{ source: "/auth/callback", destination: `${appBasePath}/auth/callback`, basePath: false, permanent: false }];
}
