import { describe, expect, it } from "vitest";
import { DEVICE_CODE_LIFETIME_MS } from "@/lib/upstream/device-flow";
import {
  DEVICE_CODE_LIFETIME_SECONDS,
  deviceCodeSecondsLeft,
  estimateServerClockOffset,
  secondsUntilOnServerClock,
  withServerClock,
} from "./server-clock";

const SERVER_NOW = Date.parse("2030-01-02T03:04:05.000Z");
const FIFTEEN_MINUTES = 15 * 60 * 1000;

describe("estimateServerClockOffset", () => {
  it("measures how far the browser clock is off, from the Date header (to the middle of its second)", () => {
    const header = new Date(SERVER_NOW).toUTCString();
    // Browser ten minutes fast: the server is ten minutes behind it.
    expect(estimateServerClockOffset(header, SERVER_NOW + 10 * 60_000)).toBe(-10 * 60_000 + 500);
    // Browser two minutes slow.
    expect(estimateServerClockOffset(header, SERVER_NOW - 2 * 60_000)).toBe(2 * 60_000 + 500);
  });

  it("is null without a usable header", () => {
    expect(estimateServerClockOffset(null, SERVER_NOW)).toBeNull();
    expect(estimateServerClockOffset("", SERVER_NOW)).toBeNull();
    expect(estimateServerClockOffset("not a date", SERVER_NOW)).toBeNull();
  });
});

describe("secondsUntilOnServerClock", () => {
  const expiresAt = SERVER_NOW + FIFTEEN_MINUTES;

  it("counts a fresh code from 15:00 whatever the browser clock says", () => {
    for (const skew of [-3_600_000, -60_000, 0, 60_000, 20 * 60_000]) {
      const browserNow = SERVER_NOW + skew;
      const offset = estimateServerClockOffset(new Date(SERVER_NOW).toUTCString(), browserNow) ?? 0;
      const left = secondsUntilOnServerClock(expiresAt, browserNow, offset);
      expect(left, `skew ${skew} ms`).toBeGreaterThanOrEqual(899);
      expect(left, `skew ${skew} ms`).toBeLessThanOrEqual(900);
    }
  });

  it("a browser 20 minutes fast would see 00:00 on the raw clock but keeps the real time left", () => {
    const browserNow = SERVER_NOW + 20 * 60_000;
    expect(secondsUntilOnServerClock(expiresAt, browserNow, 0)).toBe(0);
    expect(secondsUntilOnServerClock(expiresAt, browserNow, -20 * 60_000)).toBe(900);
  });

  it("rounds up to whole seconds and stops at zero", () => {
    expect(secondsUntilOnServerClock(expiresAt, SERVER_NOW + 1, 0)).toBe(900);
    expect(secondsUntilOnServerClock(expiresAt, expiresAt - 1001, 0)).toBe(2);
    expect(secondsUntilOnServerClock(expiresAt, expiresAt, 0)).toBe(0);
    expect(secondsUntilOnServerClock(expiresAt, expiresAt + 60_000, 0)).toBe(0);
  });
});

describe("deviceCodeSecondsLeft", () => {
  it("never shows more than the code's lifetime, even for a code issued late in the Date header's second", () => {
    // The login reply's Date says …:05 while the code was issued at …:05.800: the clock estimate
    // (the middle of that second) is 300 ms early, and the raw count would start at 901 ("15:01").
    for (const issuedLateBy of [0, 300, 501, 800, 999]) {
      const expiresAt = SERVER_NOW + issuedLateBy + FIFTEEN_MINUTES;
      const offset = estimateServerClockOffset(new Date(SERVER_NOW).toUTCString(), SERVER_NOW) ?? 0;
      const left = deviceCodeSecondsLeft(expiresAt, SERVER_NOW, offset);
      expect(left, `issued ${issuedLateBy} ms into the second`).toBeLessThanOrEqual(DEVICE_CODE_LIFETIME_SECONDS);
      expect(left, `issued ${issuedLateBy} ms into the second`).toBeGreaterThanOrEqual(DEVICE_CODE_LIFETIME_SECONDS - 1);
    }
  });

  it("counts down like the server clock below the lifetime, and stops at zero", () => {
    const expiresAt = SERVER_NOW + FIFTEEN_MINUTES;
    expect(deviceCodeSecondsLeft(expiresAt, SERVER_NOW + 60_000, 0)).toBe(840);
    expect(deviceCodeSecondsLeft(expiresAt, expiresAt + 1, 0)).toBe(0);
  });

  it("uses the server's own code lifetime", () => {
    expect(DEVICE_CODE_LIFETIME_SECONDS * 1000).toBe(DEVICE_CODE_LIFETIME_MS);
  });
});

describe("withServerClock", () => {
  it("reports the offset of every reply with a Date header, failed replies included, and passes the reply on", async () => {
    const replies = [
      new Response("{}", { status: 200, headers: { date: new Date(SERVER_NOW).toUTCString() } }),
      new Response("{}", { status: 503, headers: { date: new Date(SERVER_NOW + 5_000).toUTCString() } }),
      new Response("{}", { status: 200 }),
    ];
    const calls: Array<[RequestInfo | URL, RequestInit | undefined]> = [];
    const fakeFetch: typeof fetch = async (input, init) => {
      calls.push([input, init]);
      const next = replies.shift();
      if (!next) throw new Error("no more replies");
      return next;
    };
    const offsets: number[] = [];
    const browserNow = SERVER_NOW + 7 * 60_000;
    const wrapped = withServerClock(fakeFetch, (offset) => offsets.push(offset), () => browserNow);

    const first = await wrapped("/api/provider/session", { method: "GET" });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({});
    const second = await wrapped("/api/provider/status");
    expect(second.status).toBe(503);
    await wrapped("/api/provider/status");

    expect(calls.map(([input]) => input)).toEqual(["/api/provider/session", "/api/provider/status", "/api/provider/status"]);
    expect(calls[0]?.[1]).toEqual({ method: "GET" });
    // No Date on the third reply: nothing reported for it.
    expect(offsets).toEqual([-7 * 60_000 + 500, -7 * 60_000 + 5_500]);
  });

  it("does not swallow network failures", async () => {
    const offsets: number[] = [];
    const failing: typeof fetch = async () => {
      throw new TypeError("Failed to fetch");
    };
    await expect(withServerClock(failing, (offset) => offsets.push(offset))("/x")).rejects.toThrow("Failed to fetch");
    expect(offsets).toEqual([]);
  });
});
