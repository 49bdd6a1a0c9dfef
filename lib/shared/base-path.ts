/*
 * Where the app and its API live. Both settings are read at build time by next.config.ts, which
 * inlines them (through `env`) into the server and browser bundles alike:
 *
 * - `LWC_BASE_PATH` (e.g. `/chat-app`, default: the site root) becomes Next's own `basePath`; Next
 *   reads it again at `next start`, so start with the same value.
 * - `LWC_API_BASE_PATH` (default `/api/provider`) is where the session service answers below it. The
 *   route files stay in one folder, `app/api/provider` (its `[...path]` catch-all and the static
 *   `responses` route); any other path gets one rewrite onto that folder (lib/api-rewrites.ts).
 *
 * The browser calls `{LWC_BASE_PATH}{LWC_API_BASE_PATH}/…`. The handler routes by
 * `{LWC_API_BASE_PATH}/…`: Next removes its basePath before routing, and a rewrite keeps the URL the
 * client asked for, so a route handler's `request.url` for `/chat-app/api/chatgpt/session` reads
 * `/api/chatgpt/session` (measured with Next 16.4, `next start` and `next dev`).
 */

/** The folder of the route files (app/api/provider), and the API's path when LWC_API_BASE_PATH is unset. */
export const API_ROUTE_FOLDER = "/api/provider";

const PLAIN_SEGMENTS = /^(\/[A-Za-z0-9._~-]+)+$/;

/** Slash-separated segments of letters, digits and `. _ ~ -`, none of them `.` or `..`. */
function isPlainPath(path: string): boolean {
  return PLAIN_SEGMENTS.test(path) && !path.split("/").some((segment) => segment === "." || segment === "..");
}

/** `/chat-app/` → `/chat-app`; blank or `/` → `` (the root). Throws on anything that is not a plain path. */
export function normalizeAppBasePath(value: string | undefined): string {
  const trimmed = (value ?? "").trim().replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!isPlainPath(trimmed)) {
    throw new Error("LWC_BASE_PATH must be a path such as /chat-app (letters, digits, . _ ~ - between slashes)");
  }
  return trimmed;
}

/**
 * `/api/chatgpt/` → `/api/chatgpt`; blank → `/api/provider`. Throws on anything that is not a plain
 * path under `/api/`: there the page proxy (proxy.ts, pages only) never runs, and no page can clash.
 */
export function normalizeApiBasePath(value: string | undefined): string {
  if (!value?.trim()) return API_ROUTE_FOLDER;
  const trimmed = value.trim().replace(/\/+$/, "");
  if (!trimmed.startsWith("/api/") || !isPlainPath(trimmed)) {
    throw new Error("LWC_API_BASE_PATH must be a path under /api/ such as /api/chatgpt (letters, digits, . _ ~ - between slashes)");
  }
  return trimmed;
}

/** Next's basePath of this build ("" at the root). */
export const APP_BASE_PATH = normalizeAppBasePath(process.env.LWC_BASE_PATH);

/** The API's path below APP_BASE_PATH, as the handler routes it. */
export const API_BASE_PATH = normalizeApiBasePath(process.env.LWC_API_BASE_PATH);

/** Where the page calls the session service: `{APP_BASE_PATH}{API_BASE_PATH}`. */
export const DEFAULT_BASE_PATH = `${APP_BASE_PATH}${API_BASE_PATH}`;

export function normalizeBasePath(basePath: string | undefined): string {
  return (basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, "");
}
