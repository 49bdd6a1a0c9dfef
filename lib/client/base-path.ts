/*
 * The one base-path setting. `LWC_BASE_PATH` (e.g. `/chat-app`, default: the site root) is read at
 * build time by next.config.ts, which makes it Next's own `basePath` and inlines it (through
 * `env`) into the server and browser bundles alike. The session service is always at
 * `{LWC_BASE_PATH}/api/provider`: the route folder `app/api/provider/[...path]` never moves.
 *
 * The browser calls the full path; the server's handler keeps `/api/provider`, because Next removes
 * its basePath before routing: a route handler's `request.url` under `/chat-app` reads
 * `/api/provider/session`, not `/chat-app/api/provider/session` (measured with Next 16.4).
 */

/** `/chat-app/` → `/chat-app`; blank or `/` → `` (the root). Throws on anything that is not a plain path. */
export function normalizeAppBasePath(value: string | undefined): string {
  const trimmed = (value ?? "").trim().replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new Error("LWC_BASE_PATH must be a path such as /chat-app (letters, digits, . _ ~ - between slashes)");
  }
  return trimmed;
}

/** Next's basePath of this build ("" at the root). */
export const APP_BASE_PATH = normalizeAppBasePath(process.env.LWC_BASE_PATH);

/** Where the session service is mounted in this app: `{APP_BASE_PATH}/api/provider`. */
export const DEFAULT_BASE_PATH = `${APP_BASE_PATH}/api/provider`;

export function normalizeBasePath(basePath: string | undefined): string {
  return (basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, "");
}
