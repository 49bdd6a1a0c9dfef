import { z } from "zod";

/** The public session state the service returns from /login, /status, /session and /logout. */
export const publicSessionStateSchema = z.object({
  status: z.enum(["unauthenticated", "pending", "authenticated", "expired", "error"]),
  userCode: z.string().optional(),
  verificationUrl: z.string().optional(),
  interval: z.number().optional(),
  expiresAt: z.number().optional(),
  user: z
    .object({
      accountId: z.string(),
      email: z.string(),
      plan: z.string(),
    })
    .optional(),
  error: z.string().optional(),
  message: z.string().optional(),
});

export type PublicSessionState = z.infer<typeof publicSessionStateSchema>;
export type SessionStatus = PublicSessionState["status"];
export type SessionUser = NonNullable<PublicSessionState["user"]>;

/** Poll spacing when the server leaves `interval` out (the provider's own default). */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
