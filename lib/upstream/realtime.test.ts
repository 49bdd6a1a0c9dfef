import { describe, expect, it } from "vitest";
import { describeRealtimeFailure, MAX_REALTIME_DETAIL_CHARS, upstreamErrorCode } from "@/lib/server/voice/failure";
import { codexSession, looksLikeSdp, webSession } from "./realtime";

const call = { transport: "codex" as const, sdp: "v=0\r\n" };

describe("realtime session JSON", () => {
  it("codex: the v1 quicksilver session with the default voice and model", () => {
    expect(codexSession(call)).toEqual({
      type: "quicksilver",
      model: "gpt-realtime-1.5",
      instructions: expect.any(String),
      audio: { input: { format: { type: "audio/pcm", rate: 24_000 } }, output: { voice: "cove" } },
    });
    expect(codexSession({ ...call, voice: "sol", model: "m", instructions: "i" })).toMatchObject({
      model: "m",
      instructions: "i",
      audio: { output: { voice: "sol" } },
    });
  });

  it("web: voice mode per transport, history off for vp/vps only, chat_mode for wm only", () => {
    const wm = webSession("wm", { ...call, transport: "wm" });
    const vps = webSession("vps", { ...call, transport: "vps" });
    expect(wm).toMatchObject({ voice: "juniper", voice_mode: "wingman", history_and_training_disabled: false, chat_mode: "chat", model_slug: "auto" });
    expect(vps).toMatchObject({ voice_mode: "standard", history_and_training_disabled: true });
    expect(vps).not.toHaveProperty("chat_mode");
    expect(webSession("vp", { ...call, transport: "vp", voiceMode: "standard" }).voice_mode).toBe("standard");
  });

  it("an SDP is text that starts with v=0 after whitespace", () => {
    expect(looksLikeSdp("  \r\nv=0\r\no=- 1 2 IN IP4 127.0.0.1")).toBe(true);
    expect(looksLikeSdp('{"sdp":"v=0"}')).toBe(false);
    expect(looksLikeSdp("")).toBe(false);
  });
});

describe("realtime failure detail", () => {
  it("carries the provider's words after our sentence, without the token they quote", () => {
    const body = JSON.stringify({ error: { message: "token eyJhbGciOi.secret is bad", code: "token_expired" } });
    const detail = describeRealtimeFailure(401, body);
    expect(detail).toBe("The provider refused the voice call's credentials (HTTP 401, code token_expired). The provider said: token [redacted] is bad");
    expect(detail).not.toContain("eyJ");
  });

  it("takes a plain-text body as the provider's words, the request's own texts replaced", () => {
    const detail = describeRealtimeFailure(400, "session.voice_mode is no longer accepted for 'Talk like a pirate today'", [
      "Talk like a pirate today",
    ]);
    expect(detail).toBe("The provider rejected the voice call (HTTP 400). The provider said: session.voice_mode is no longer accepted for '[input]'");
  });

  it("reads the text of an HTML error page, not its markup", () => {
    const page = "<html><head><style>b{}</style></head><body><h1>502 Bad Gateway</h1><script>x()</script></body></html>";
    expect(describeRealtimeFailure(502, page)).toBe(
      "The provider's voice service failed (HTTP 502). Try again shortly. The provider said: 502 Bad Gateway",
    );
  });

  it("drops a code that is not a plain identifier, and stays bounded", () => {
    expect(upstreamErrorCode(JSON.stringify({ error: { code: "Bearer abc def" } }))).toBeUndefined();
    expect(upstreamErrorCode(JSON.stringify({ error: "x".repeat(65) }))).toBeUndefined();
    expect(upstreamErrorCode("<html>")).toBeUndefined();
    for (const status of [400, 404, 429, 500, 503]) {
      expect(describeRealtimeFailure(status, "x".repeat(10_000)).length).toBeLessThanOrEqual(MAX_REALTIME_DETAIL_CHARS);
    }
  });
});
