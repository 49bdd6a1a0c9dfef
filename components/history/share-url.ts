import { APP_BASE_PATH } from "@/lib/shared/base-path";

/** The address of a share's read-only page, served by this app. */
export function shareUrl(id: string): string {
  return `${window.location.origin}${APP_BASE_PATH}/share/${encodeURIComponent(id)}`;
}
