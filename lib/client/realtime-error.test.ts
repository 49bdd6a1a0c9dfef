import { describe, expect, it } from "vitest";
import { describeRealtimeError, microphoneError, RealtimeError, realtimeErrorFromResponse } from "./realtime-error";

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

describe("realtimeErrorFromResponse", () => {
  it("keeps the contract's code, status and body fields", async () => {
    const error = await realtimeErrorFromResponse(jsonResponse(403, { error: "realtime_transport_not_allowed", transport: "wm" }));
    expect(error).toBeInstanceOf(RealtimeError);
    expect(error.code).toBe("realtime_transport_not_allowed");
    expect(error.status).toBe(403);
    expect(error.body).toEqual({ error: "realtime_transport_not_allowed", transport: "wm" });
  });

  it("reads realtime_request_failed with the upstream status and detail", async () => {
    const error = await realtimeErrorFromResponse(jsonResponse(500, { error: "realtime_request_failed", status: 500, detail: "upstream broke" }));
    expect(error.code).toBe("realtime_request_failed");
    expect(error.message).toBe("upstream broke");
  });

  it("treats a bare 401 as signed out and other bodies without a code as http_<status>", async () => {
    const signedOut = await realtimeErrorFromResponse(new Response("nope", { status: 401 }));
    expect(signedOut.code).toBe("not_authenticated");
    expect(signedOut.isSignedOut).toBe(true);
    const html = await realtimeErrorFromResponse(new Response("<html>bad gateway</html>", { status: 504 }));
    expect(html.code).toBe("http_504");
    expect(html.body).toBeUndefined();
  });
});

describe("microphoneError", () => {
  it("maps a refused permission to microphone_denied", () => {
    expect(microphoneError(new DOMException("Permission denied", "NotAllowedError")).code).toBe("microphone_denied");
  });

  it("maps a missing or busy device to microphone_unavailable", () => {
    expect(microphoneError(new DOMException("Requested device not found", "NotFoundError")).code).toBe("microphone_unavailable");
    expect(microphoneError(new DOMException("Could not start audio source", "NotReadableError")).code).toBe("microphone_unavailable");
  });
});

describe("describeRealtimeError", () => {
  it("names the refused transport and voice mode", () => {
    const transport = describeRealtimeError(new RealtimeError({ code: "realtime_transport_not_allowed", message: "", status: 403, body: { transport: "wm" } }));
    expect(transport.message).toContain("“wm”");
    expect(transport.retryable).toBe(false);
    const mode = describeRealtimeError(new RealtimeError({ code: "realtime_mode_not_allowed", message: "", status: 403, body: { voiceMode: "advanced" } }));
    expect(mode.message).toContain("“advanced”");
  });

  it("gives the upstream status of a failed call and offers a retry", () => {
    const info = describeRealtimeError(new RealtimeError({ code: "realtime_request_failed", message: "", status: 502, body: { status: 503 } }));
    expect(info.message).toContain("status 503");
    expect(info.retryable).toBe(true);
  });

  it("explains how to allow a blocked microphone", () => {
    const info = describeRealtimeError(new RealtimeError({ code: "microphone_denied", message: "" }));
    expect(info.title).toBe("Microphone blocked");
    expect(info.message).toMatch(/site settings/);
  });

  it("does not repeat the upstream detail to the person", () => {
    const info = describeRealtimeError(new RealtimeError({ code: "realtime_request_failed", message: "secret-ish upstream text", body: { detail: "secret-ish upstream text" } }));
    expect(info.message).not.toContain("secret-ish");
  });

  it("says agent mode is unavailable when the server cannot start its sandbox (503 agent_sandbox_unavailable), with no retry", async () => {
    const error = await realtimeErrorFromResponse(jsonResponse(503, { error: "agent_sandbox_unavailable", message: "Agent voice is unavailable on this server." }));
    const info = describeRealtimeError(error);
    expect(info).toMatchObject({ code: "agent_sandbox_unavailable", title: "Agent mode is unavailable", retryable: false });
    expect(info.message).toMatch(/sandbox/);
  });

  it("shows a busy agent voice as a friendly message with the wait, and offers a retry", async () => {
    const account = describeRealtimeError(
      await realtimeErrorFromResponse(jsonResponse(429, { error: "realtime_busy", message: "server words", retryAfterSeconds: 30 })),
    );
    expect(account).toMatchObject({ code: "realtime_busy", title: "Agent mode is busy", retryable: true });
    expect(account.message).toMatch(/already has .* agent voice calls/);
    expect(account.message).not.toContain("server words");
    const server = describeRealtimeError(
      await realtimeErrorFromResponse(jsonResponse(503, { error: "realtime_busy", message: "server words", retryAfterSeconds: 30 })),
    );
    expect(server).toMatchObject({ code: "realtime_busy", title: "Agent mode is busy", retryable: true });
    expect(server.message).toMatch(/busy on this server.*30 seconds/);
  });

  it("says how long to wait when voice calls come too fast (429 rate_limited)", async () => {
    const info = describeRealtimeError(await realtimeErrorFromResponse(jsonResponse(429, { error: "rate_limited", retryAfterSeconds: 42 })));
    expect(info).toMatchObject({ code: "rate_limited", title: "Too many calls", retryable: true });
    expect(info.message).toContain("42 seconds");
  });

  it("names a voice model the server does not allow, and a start a newer one replaced", async () => {
    const model = describeRealtimeError(
      await realtimeErrorFromResponse(jsonResponse(403, { error: "realtime_model_not_allowed", model: "gpt-realtime-x" })),
    );
    expect(model).toMatchObject({ code: "realtime_model_not_allowed", retryable: false });
    expect(model.message).toContain("“gpt-realtime-x”");
    const superseded = describeRealtimeError(
      await realtimeErrorFromResponse(jsonResponse(409, { error: "realtime_start_superseded", message: "x" })),
    );
    expect(superseded).toMatchObject({ code: "realtime_start_superseded", title: "A newer call took over" });
  });

  it("says voice is off when the route does not exist (404)", async () => {
    const info = describeRealtimeError(await realtimeErrorFromResponse(new Response("Not Found", { status: 404 })));
    expect(info).toMatchObject({ code: "http_404", title: "Voice is turned off", retryable: false });
  });

  it("has words for anything that is not a RealtimeError", () => {
    expect(describeRealtimeError(new TypeError("x")).code).toBe("connection_failed");
  });
});
