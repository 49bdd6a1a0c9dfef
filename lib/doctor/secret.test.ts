import { describe, expect, it } from "vitest";
import { checkSecret } from "./secret";

const RANDOM = "q3ZbV8n1Lx0TfR7yK2pWcJ5hM9sA4dGe";

describe("checkSecret", () => {
  it("one or more random secrets of 32+ characters are ok, and the detail never shows them", () => {
    const result = checkSecret([RANDOM, `${RANDOM}Xy`], true);
    expect(result).toMatchObject({ check: "secret", status: "ok" });
    expect(result.detail).toMatch(/2 secrets/);
    expect(result.detail).not.toContain(RANDOM.slice(0, 8));
  });

  it("unset is a failure in production and a warning elsewhere", () => {
    expect(checkSecret([], true)).toMatchObject({ status: "fail", detail: expect.stringMatching(/LWC_SECRET is not set/) });
    expect(checkSecret([], false)).toMatchObject({ status: "warn", detail: expect.stringMatching(/LWC_SECRET is not set/) });
  });

  it("a secret under 32 characters fails (the server would not start), named by its place", () => {
    expect(checkSecret([RANDOM, "short-but-random-8x2Kq"], false)).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/secret #2 is 22 characters/),
    });
  });

  it("a long secret made of a few characters or of words fails as guessable", () => {
    expect(checkSecret(["a".repeat(40)], false)).toMatchObject({ status: "fail", detail: expect.stringMatching(/secret #1 .*guess/) });
    expect(checkSecret(["abababababababababababababababababab"], false).status).toBe("fail");
    expect(checkSecret(["integration-test-secret-0123456789-abcdef"], false)).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/guess/),
    });
    expect(checkSecret(["my-production-password-is-very-long-1"], true).status).toBe("fail");
  });
});
