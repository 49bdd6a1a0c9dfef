// zod/mini: the same validation without the chainable API, a few KB instead of the whole of zod on
// the sign-in screen.
import * as z from "zod/mini";

/** The public session state the service returns from /login, /status, /session and /logout. */
export const publicSessionStateSchema = z.object({
  status: z.enum(["unauthenticated", "pending", "authenticated", "expired", "error"]),
  userCode: z.optional(z.string()),
  verificationUrl: z.optional(z.string()),
  interval: z.optional(z.number()),
  expiresAt: z.optional(z.number()),
  user: z.optional(
    z.object({
      accountId: z.string(),
      email: z.string(),
      plan: z.string(),
    }),
  ),
  error: z.optional(z.string()),
  message: z.optional(z.string()),
});

export type PublicSessionState = z.infer<typeof publicSessionStateSchema>;
export type SessionStatus = PublicSessionState["status"];
export type SessionUser = NonNullable<PublicSessionState["user"]>;

/** Poll spacing when the server leaves `interval` out (the provider's own default). */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
