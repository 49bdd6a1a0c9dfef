import { describe, expect, it } from "vitest";
import { BASE, findLeakedTokens, signIn, startHarness } from "./harness";
import { startSiwcHarness } from "./siwc-support";

describe("the sign-ins a server offers", () => {
  it("default (device code only): the states are as they always were, with no signIn field", async () => {
    const harness = await startHarness();
    try {
      const client = harness.client();
      expect((await client.get("/session")).json()).toEqual({ status: "unauthenticated" });
      await signIn(harness, client);
      expect((await client.get("/session")).json()).not.toHaveProperty("signIn");
    } finally {
      await harness.close();
    }
  });

  it("device and siwc: a signed-out state lists both, a device session says device", async () => {
    const harness = await startSiwcHarness();
    try {
      const client = harness.client();
      expect((await client.get("/session")).json()).toEqual({ status: "unauthenticated", signIn: { methods: ["device", "siwc"], siwc: "available" } });
      await signIn(harness, client);
      expect((await client.get("/session")).json()).toMatchObject({ status: "authenticated", signIn: "device" });
      expect((await client.post("/logout")).json()).toEqual({ status: "unauthenticated", signIn: { methods: ["device", "siwc"], siwc: "available" } });
    } finally {
      await harness.close();
    }
  });

  it("siwc only: POST /login answers 403 device_login_disabled and asks upstream for nothing", async () => {
    const harness = await startSiwcHarness({ handler: { signIn: { device: false, siwc: true } } });
    try {
      // (SIWC's settings are the defaults here: nothing in this test reaches them)
      const client = harness.client();
      const reply = await client.post("/login");
      expect(reply.status).toBe(403);
      expect(reply.json()).toMatchObject({ error: "device_login_disabled", message: expect.any(String) });
      expect(harness.calls).toEqual([]);
      expect((await client.get("/session")).json()).toMatchObject({ signIn: { methods: ["siwc"] } });
    } finally {
      await harness.close();
    }
  });
});

describe("what the spec leaves open, as the mock's settings: the sign-in copes with each", () => {
  for (const settings of [
    { earliestRefreshAt: "iso" },
    { earliestRefreshAt: "null" },
    { idTokenAud: "string" },
    { errorStyle: "nested" },
  ] as const) {
    it(JSON.stringify(settings), async () => {
      const harness = await startSiwcHarness();
      try {
        harness.mock.siwc.configure(settings);
        const browser = harness.browser();
        expect((await browser.signIn()).location).toBe("/");
        expect(await browser.session()).toMatchObject({ status: "authenticated", signIn: "siwc" });
        expect(findLeakedTokens(harness.evidence)).toEqual([]);
      } finally {
        await harness.close();
      }
    });
  }

  it("the nested error style still ends the login on a terminal refresh code", async () => {
    const harness = await startSiwcHarness();
    try {
      harness.mock.siwc.configure({ errorStyle: "nested" });
      const browser = harness.browser();
      await browser.signIn();
      harness.mock.siwc.arm({ switch: "token_refresh_token_expired", grant: "refresh_token" });
      harness.clock.advance(56 * 60_000);
      expect((await browser.request("GET", `${BASE}/status`)).json()).toMatchObject({ status: "expired", error: "refresh_token_invalid" });
    } finally {
      await harness.close();
    }
  });
});
