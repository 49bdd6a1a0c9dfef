import "server-only";
import { readCookieValues, type SessionCookieSigner } from "../http/cookies";
import { randomId } from "../http/encoding";

/**
 * The browser a SIWC sign-in was started in: a signed random id in a cookie, stored with each
 * attempt. The callback finishes an attempt only for the browser that started it, so a link with
 * someone else's code and state (a login CSRF) signs no one in. One id per browser, reused by every
 * start, so two tabs can each finish their own attempt, and the id also recalls which registration
 * this browser signed in with (a returning person). Set on 127.0.0.1, where the callback arrives
 * (SameSite=Lax: sent on the top-level redirect back); it names no one.
 */
const BINDING_COOKIE = "lwc_siwc_browser";
/** Browsers keep a cookie for at most 400 days. */
const BINDING_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

/** The request's binding id when its cookie verifies, else null. */
export async function readBinding(request: Request, signer: SessionCookieSigner): Promise<string | null> {
  for (const value of readCookieValues(request, BINDING_COOKIE)) {
    const id = await signer.verify(value);
    if (id !== null) return id;
  }
  return null;
}

/** A binding id for this start (the browser's current one, or a new one) and the cookie that (re)sets it. */
export async function bindingFor(request: Request, signer: SessionCookieSigner): Promise<{ id: string; setCookie: string }> {
  const id = (await readBinding(request, signer)) ?? randomId();
  const value = encodeURIComponent(await signer.sign(id));
  return { id, setCookie: `${BINDING_COOKIE}=${value}; Path=/; Max-Age=${BINDING_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax` };
}
