/** Where the session service is mounted unless told otherwise. */
export const DEFAULT_BASE_PATH = "/api/provider";

export function normalizeBasePath(basePath: string | undefined): string {
  return (basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, "");
}
