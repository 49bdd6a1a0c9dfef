import { describe, expect, it } from "vitest";
import { describeSignInError, siwcStartUrl, takeSignInError } from "./siwc";

/** A history that records what replaceState wrote. */
function fakeHistory() {
  const written: string[] = [];
  return { written, history: { replaceState: (_state: unknown, _unused: string, url?: string | URL | null) => void written.push(String(url)) } };
}

describe("siwcStartUrl", () => {
  it("is the start route below the API's path, asking again for plan usage or a new registration when told", () => {
    expect(siwcStartUrl("/api/provider")).toBe("/api/provider/siwc/start");
    expect(siwcStartUrl("/chat-app/api/chatgpt", { consent: true })).toBe("/chat-app/api/chatgpt/siwc/start?consent=1");
    expect(siwcStartUrl("/api/provider", { newRegistration: true })).toBe("/api/provider/siwc/start?new=1");
  });
});

describe("takeSignInError", () => {
  it("returns the callback's code and takes it out of the address, keeping the rest", () => {
    const { written, history } = fakeHistory();
    expect(takeSignInError({ href: "http://127.0.0.1:3000/chat-app/?signin_error=siwc_access_denied&x=1#top" }, history)).toBe("siwc_access_denied");
    expect(written).toEqual(["/chat-app/?x=1#top"]);
  });

  it("does nothing on a page without one", () => {
    const { written, history } = fakeHistory();
    expect(takeSignInError({ href: "http://127.0.0.1:3000/" }, history)).toBeNull();
    expect(written).toEqual([]);
  });

  it("never shows what someone put in a link: anything but a code reads as unknown_error", () => {
    const { written, history } = fakeHistory();
    expect(takeSignInError({ href: "http://127.0.0.1:3000/?signin_error=%3Cb%3EYour%20account%20is%20locked%3C%2Fb%3E" }, history)).toBe("unknown_error");
    expect(written).toEqual(["/"]);
  });
});

describe("describeSignInError", () => {
  it("has a sentence for each code the callback sends", () => {
    for (const code of [
      "siwc_disabled",
      "siwc_requires_loopback",
      "siwc_state_invalid",
      "siwc_access_denied",
      "siwc_registration_incomplete",
      "siwc_client_mismatch",
      "account_mismatch",
      "invalid_id_token",
      "identity_verification_unavailable",
      "siwc_exchange_failed",
    ]) {
      expect(describeSignInError(code), code).not.toContain(code);
    }
  });

  it("names a code it does not know", () => {
    expect(describeSignInError("something_new")).toBe("Signing in with ChatGPT didn't work (something_new). Try again.");
  });
});
