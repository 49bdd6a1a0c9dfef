import { normalizeApiBasePath, normalizeAppBasePath } from "../lib/shared/base-path";

export interface DemoBannerInput {
  appPort: number;
  /** The environment `next dev` gets: its LWC_BASE_PATH and LWC_API_BASE_PATH say where the page and the API are. */
  env: Record<string, string | undefined>;
  mock: { url: string; verificationUrl: string };
  agentVoice: string;
}

/** The page's and the API's URLs as the app will serve them; throws on a bad path setting (naming it, not its value). */
export function demoUrls(appPort: number, env: Record<string, string | undefined>): { app: string; api: string } {
  const origin = `http://localhost:${appPort}`;
  const appBase = normalizeAppBasePath(env.LWC_BASE_PATH);
  return { app: `${origin}${appBase || "/"}`, api: `${origin}${appBase}${normalizeApiBasePath(env.LWC_API_BASE_PATH)}` };
}

/** The app's address on 127.0.0.1, where Sign in with ChatGPT's loopback callback needs the page. */
function siwcOrigin(appUrl: string): string {
  return appUrl.replace("//localhost:", "//127.0.0.1:");
}

function siwcOn(signIn: string): boolean {
  return signIn.split(",").map((method) => method.trim()).includes("siwc");
}

/** The mock's Sign in with ChatGPT issuer and API base, when that sign-in is on. */
function siwcLine(env: Record<string, string | undefined>): string {
  if (!siwcOn(env.LWC_SIGN_IN ?? "") || !env.LWC_SIWC_ISSUER) return "";
  return `\n  Mock SIWC:      ${env.LWC_SIWC_ISSUER}  (API: ${env.LWC_SIWC_API_BASE ?? "default"})`;
}

function howToSignIn(signIn: string, appUrl: string): string {
  if (!siwcOn(signIn)) {
    return `  Open the app, click "Sign in with ChatGPT", then approve the code on the
  mock provider's page.`;
  }
  return `  Open the app and sign in either way, both played by the mock provider:
  "Continue with ChatGPT" (Sign in with ChatGPT: the page moves to
  ${siwcOrigin(appUrl)}; press Approve on the mock's consent page), or
  "Sign in with a one-time code" (approve the code on the mock's approval page).`;
}

/** What `npm run demo` prints once both servers are starting. */
export function demoBanner({ appPort, env, mock, agentVoice }: DemoBannerInput): string {
  const urls = demoUrls(appPort, env);
  return `
  Offline demo
  ────────────
  App:            ${urls.app}
  API:            ${urls.api}
  Mock provider:  ${mock.url}  (its approval page: ${mock.verificationUrl})${siwcLine(env)}
  Agent voice:    ${agentVoice}

${howToSignIn(env.LWC_SIGN_IN ?? "", urls.app)}
  No real account or network is used. Ctrl+C stops both.
`;
}
