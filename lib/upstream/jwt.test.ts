import { describe, expect, it } from "vitest";
import { isProviderAuthError } from "./errors";
import { AUTH_CLAIM, PROFILE_CLAIM, decodeJwtPayload, readAccountInfo, readJwtExpiry } from "./jwt";
import { makeUnsignedJwt } from "@/test-support/unsigned-jwt";

describe("decodeJwtPayload", () => {
  it("decodes a base64url payload, including characters that differ from base64", () => {
    // "~~~" and "???" encode to base64 with "+" / "/", which base64url spells "-" / "_".
    const token = makeUnsignedJwt({ sub: "abc", note: "~~~???" });
    expect(token.split(".")[1]).toMatch(/[-_]/);
    expect(decodeJwtPayload(token)).toEqual({ sub: "abc", note: "~~~???" });
  });

  it.each([
    ["empty", ""],
    ["two parts", "a.b"],
    ["four parts", "a.b.c.d"],
    ["payload not base64url", "aaa.!!!.ccc"],
    ["payload not JSON", `aaa.${Buffer.from("nope").toString("base64url")}.ccc`],
    ["payload a JSON array", `aaa.${Buffer.from("[1,2]").toString("base64url")}.ccc`],
  ])("returns null for %s", (_label, token) => {
    expect(decodeJwtPayload(token)).toBeNull();
  });
});

describe("readJwtExpiry", () => {
  it("turns exp seconds into epoch milliseconds", () => {
    expect(readJwtExpiry(makeUnsignedJwt({ exp: 1_700_000_000 }))).toBe(1_700_000_000_000);
  });

  it("is null without a numeric exp", () => {
    expect(readJwtExpiry(makeUnsignedJwt({}))).toBeNull();
    expect(readJwtExpiry(makeUnsignedJwt({ exp: "1700000000" }))).toBeNull();
    expect(readJwtExpiry("not-a-jwt")).toBeNull();
  });
});

describe("readAccountInfo", () => {
  const auth = { chatgpt_account_id: "acct_1", chatgpt_plan_type: "pro", chatgpt_user_id: "user_1" };

  it("reads account, plan, user id and the top-level email from the id token", () => {
    const info = readAccountInfo({
      idToken: makeUnsignedJwt({ email: "a@example.com", [AUTH_CLAIM]: auth }),
      accessToken: makeUnsignedJwt({ [AUTH_CLAIM]: { chatgpt_account_id: "acct_other", chatgpt_plan_type: "free" } }),
    });
    expect(info).toEqual({ accountId: "acct_1", email: "a@example.com", plan: "pro", userId: "user_1" });
  });

  it("falls back to the access token for the account id and to the profile claim for the email", () => {
    const info = readAccountInfo({
      idToken: makeUnsignedJwt({ [PROFILE_CLAIM]: { email: "p@example.com" } }),
      accessToken: makeUnsignedJwt({ [AUTH_CLAIM]: { chatgpt_account_id: "acct_2", chatgpt_plan_type: "team" } }),
    });
    expect(info).toEqual({ accountId: "acct_2", email: "p@example.com", plan: "team" });
  });

  it("uses plan 'unknown' and email '' when absent", () => {
    const info = readAccountInfo({
      idToken: makeUnsignedJwt({ [AUTH_CLAIM]: { chatgpt_account_id: "acct_3" } }),
      accessToken: "opaque-access-token",
    });
    expect(info).toEqual({ accountId: "acct_3", email: "", plan: "unknown" });
  });

  it("throws invalid_token when neither token carries an account id", () => {
    let caught: unknown;
    try {
      readAccountInfo({ idToken: makeUnsignedJwt({ email: "x@example.com" }), accessToken: "garbage" });
    } catch (error) {
      caught = error;
    }
    expect(isProviderAuthError(caught) && caught.code).toBe("invalid_token");
  });
});
