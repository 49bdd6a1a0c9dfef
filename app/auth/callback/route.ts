import { providerHandler } from "@/lib/provider-app";

// Sign in with ChatGPT's callback, `/auth/callback` at the site's root (the only path SIWC accepts;
// under LWC_BASE_PATH a redirect in next.config.ts sends it here). The handler answers it while
// LWC_SIGN_IN includes siwc, and 404 otherwise.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = providerHandler.handler;
