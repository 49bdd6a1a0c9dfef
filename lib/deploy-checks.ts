import "server-only";
/**
 * Deploy guards: a production server set up so that it loses sessions says so. The in-memory store
 * (sessions gone on restart, not shared between instances) unless LWC_ALLOW_MEMORY_STORE=1 says one
 * instance is meant, and a missing LWC_SECRET (a random one per process) are logged as errors at
 * start (instrumentation.ts) and named by /api/health. On Vercel neither starts: loading the app
 * throws, and `next build` loads it, so the deploy stops at its build.
 */
import { storeKindFromEnv } from "@/lib/stores";
import { LOG_PREFIX, type Logger } from "@/lib/logger";

type Env = Record<string, string | undefined>;

/** A reason /api/health gives for `degraded` besides `store_unavailable`. */
export type DeploymentProblem = "memory_store" | "ephemeral_secret";

const production = (env: Env) => env.NODE_ENV === "production";
const onMemoryStore = (env: Env) => storeKindFromEnv(env) === "memory";
const memoryStoreAllowed = (env: Env) => env.LWC_ALLOW_MEMORY_STORE?.trim() === "1";
const secretSet = (env: Env) => (env.LWC_SECRET ?? "").split(",").some((secret) => secret.trim() !== "");

const SHARED_STORE_FIX =
  "Connect a shared store: UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or KV_REST_API_URL and KV_REST_API_TOKEN";

const MESSAGES: Record<DeploymentProblem, string> = {
  memory_store:
    "sessions are kept in this process's memory: they are lost on every restart and not shared between instances. " +
    `${SHARED_STORE_FIX}, or set LWC_ALLOW_MEMORY_STORE=1 if one instance is what you mean.`,
  ephemeral_secret:
    "LWC_SECRET is not set: a random secret of this process signs the cookies, so every restart signs everyone out " +
    "and instances refuse each other's sessions. Set LWC_SECRET to 32 or more random characters (openssl rand -base64 48).",
};

/** What is wrong with a production server's setup (NODE_ENV=production); nothing elsewhere. */
export function deploymentProblems(env: Env): DeploymentProblem[] {
  if (!production(env)) return [];
  const problems: DeploymentProblem[] = [];
  if (onMemoryStore(env) && !memoryStoreAllowed(env)) problems.push("memory_store");
  if (!secretSet(env)) problems.push("ephemeral_secret");
  return problems;
}

/**
 * SIWC needs the app on the person's own machine (a loopback callback, tokens kept under their
 * control): on a hosting platform (VERCEL=1) its start route refuses, and the server says why at start.
 */
export function siwcOnHostingPlatform(env: Env): boolean {
  return env.VERCEL?.trim() === "1";
}

const siwcRequested = (env: Env) => (env.LWC_SIGN_IN ?? "").split(",").some((method) => method.trim().toLowerCase() === "siwc");

const SIWC_HOSTED_MESSAGE =
  "LWC_SIGN_IN includes siwc, but Sign in with ChatGPT with plan usage is for apps running on the person's own machine " +
  "(a loopback callback): on this hosting platform its start route refuses. A hosted app applies to OpenAI first " +
  "(https://openai.com/form/sign-in-with-chatgpt-interest/); remove siwc from LWC_SIGN_IN here.";

/** At start: one error line per problem, and a warning for an in-memory store that LWC_ALLOW_MEMORY_STORE=1 allowed. */
export function logDeploymentProblems(env: Env, logger: Logger): void {
  for (const problem of deploymentProblems(env)) {
    logger.error(`${LOG_PREFIX} production setup (/api/health reports "${problem}"): ${MESSAGES[problem]}`);
  }
  if (siwcRequested(env) && siwcOnHostingPlatform(env)) logger.error(`${LOG_PREFIX} ${SIWC_HOSTED_MESSAGE}`);
  if (production(env) && onMemoryStore(env) && memoryStoreAllowed(env)) {
    logger.warn(`${LOG_PREFIX} LWC_ALLOW_MEMORY_STORE=1: sessions are kept in this process's memory (lost on restart, not shared between instances).`);
  }
}

const VERCEL_MEMORY_STORE_MESSAGE =
  "The in-memory session store cannot run on Vercel: each request may reach another instance, which knows none of the " +
  "others' sessions. Connect Upstash Redis from the Vercel Marketplace (it sets KV_REST_API_URL and KV_REST_API_TOKEN) " +
  "or set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN; LWC_ALLOW_MEMORY_STORE=1 starts it anyway.";

const VERCEL_SECRET_MESSAGE =
  "LWC_SECRET is not set, and on Vercel it must be: each instance would sign cookies with a random secret of its own, " +
  "so people are signed out whenever a request reaches another instance. Set LWC_SECRET to 32 or more random " +
  "characters (openssl rand -base64 48) for Production and Preview, then deploy again.";

/**
 * On Vercel (VERCEL=1, production) each request may reach another instance: the in-memory store
 * (unless LWC_ALLOW_MEMORY_STORE=1) and a missing LWC_SECRET are refused, both named in one error.
 */
export function refuseBrokenDeployOnVercel(env: Env): void {
  if (env.VERCEL?.trim() !== "1" || !production(env)) return;
  const refusals: string[] = [];
  if (onMemoryStore(env) && !memoryStoreAllowed(env)) refusals.push(VERCEL_MEMORY_STORE_MESSAGE);
  if (!secretSet(env)) refusals.push(VERCEL_SECRET_MESSAGE);
  if (refusals.length > 0) throw new Error(refusals.join(" "));
}
