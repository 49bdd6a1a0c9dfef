import { describe, expect, it } from "vitest";
import { createCookieSigner, readCookieValues, serializeSessionCookie } from "./cookies";
import { randomId, toBase64Url } from "./encoding";
import { resolveOptions } from "../options";

const SECRET_A = "a".repeat(32);
const SECRET_B = "b".repeat(40);

describe("createCookieSigner", () => {
  it("signs with the first secret and verifies with any", async () => {
    const id = randomId();
    const oldSigner = createCookieSigner([SECRET_B]);
    const rotated = createCookieSigner([SECRET_A, SECRET_B]);
    const value = await oldSigner.sign(id);
    expect(await rotated.verify(value)).toBe(id);
    expect(await rotated.verify(await rotated.sign(id))).toBe(id);
    expect(await createCookieSigner([SECRET_A]).verify(value)).toBeNull();
  });

  it("signs exactly as HMAC-SHA256 over the context and id (Web Crypto), so cookies already issued keep verifying", async () => {
    const id = randomId();
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET_B), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`lwc-session-cookie.v1.${id}`));
    const issued = `${id}.${toBase64Url(new Uint8Array(mac))}`;
    expect(await createCookieSigner([SECRET_B]).sign(id)).toBe(issued);
    expect(await createCookieSigner([SECRET_A, SECRET_B]).verify(issued)).toBe(id);
  });

  it("rejects tampering, truncation and odd shapes", async () => {
    const signer = createCookieSigner([SECRET_A]);
    const id = randomId();
    const value = await signer.sign(id);
    // Verified (and so remembered) first: a remembered value must not make its neighbours pass.
    expect(await signer.verify(value)).toBe(id);
    const other = randomId();
    for (const bad of [`${other}${value.slice(id.length)}`, value.slice(0, -1), `${id}.`, id, "", ".", `${value}.x`, `${value}=`]) {
      expect(await signer.verify(bad), bad).toBeNull();
    }
  });
});

describe("readCookieValues", () => {
  it("finds every value of the named cookie", () => {
    const request = new Request("http://h/", { headers: { cookie: 'a=1; lwc_session=x.y; lwc_session2=z; lwc_session="q.r"' } });
    expect(readCookieValues(request, "lwc_session")).toEqual(["x.y", "q.r"]);
    expect(readCookieValues(new Request("http://h/"), "lwc_session")).toEqual([]);
  });
});

describe("serializeSessionCookie", () => {
  const { cookie } = resolveOptions({ secrets: [SECRET_A], sessionTtlMs: 90_000 });

  it("sets HttpOnly, SameSite=Lax, Path=/ and Max-Age from the session TTL", () => {
    expect(serializeSessionCookie(new Request("http://h/"), cookie, "v")).toBe(
      "lwc_session=v; Path=/; Max-Age=90; HttpOnly; SameSite=Lax",
    );
  });

  it("adds Secure for HTTPS, directly or by X-Forwarded-Proto", () => {
    expect(serializeSessionCookie(new Request("https://h/"), cookie, "v")).toContain("; Secure");
    const proxied = new Request("http://h/", { headers: { "x-forwarded-proto": "https,http" } });
    expect(serializeSessionCookie(proxied, cookie, "v")).toContain("; Secure");
  });
});
