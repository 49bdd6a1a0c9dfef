/*
 * The security headers of every response. The Content-Security-Policy needs a fresh nonce per page
 * and is set by proxy.ts; the rest are fixed and set for every path by next.config.ts.
 */

export const STATIC_SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  // The voice page needs the microphone (this origin only); nothing needs the camera or location.
  { key: "Permissions-Policy", value: "microphone=(self), camera=(), geolocation=(), payment=(), usb=()" },
];

/**
 * The page CSP. Scripts: only Next's own, carrying this request's nonce, and what they load
 * ('strict-dynamic' covers the lazily loaded chat chunks). Styles: 'unsafe-inline' because the
 * markdown renderer and KaTeX set style attributes, which no nonce can cover. Media and the API
 * stay on this origin ('self'); WebRTC media is not governed by CSP.
 */
export function contentSecurityPolicy(nonce: string, options: { development: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
