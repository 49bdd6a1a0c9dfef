import "server-only";
/**
 * Waits for a session relay in a sandbox: first its "listening" line on the command's output (or
 * its exit, which means it could not start), then an answer to `GET /healthz` at the url the API
 * reported for its port (the route in front of it works and the token is right). Resolves with
 * the relay's epoch.
 */
import type { Command } from "@vercel/sandbox";
import { connectRelay, readJsonAnswer } from "../../relay/relay-http";
import { VercelSandboxError } from "./errors";

const HEALTH_RETRY_MS = 100;

async function listeningLine(command: Command, signal: AbortSignal): Promise<void> {
  let stdout = "";
  for await (const log of command.logs({ signal })) {
    if (log.stream !== "stdout") continue;
    stdout += log.data;
    const newline = stdout.indexOf("\n");
    if (newline === -1) continue;
    let line: { type?: unknown };
    try {
      line = JSON.parse(stdout.slice(0, newline)) as { type?: unknown };
    } catch {
      throw new VercelSandboxError("not_started", "the session relay wrote something other than its listening line");
    }
    if (line.type === "listening") return;
    throw new VercelSandboxError("not_started", "the session relay's first line was not its listening line");
  }
  const finished = await command.wait({ signal });
  throw new VercelSandboxError("not_started", `the session relay exited with code ${finished.exitCode} before it listened`);
}

async function healthyEpoch(url: string, token: string, signal: AbortSignal): Promise<string> {
  const connection = connectRelay({ url }, token);
  try {
    let last = "no answer";
    while (!signal.aborted) {
      const request = connection.request("GET", "/healthz");
      const stop = () => request.abort();
      signal.addEventListener("abort", stop, { once: true });
      try {
        const response = await request.response;
        const body = await readJsonAnswer(response);
        if (response.statusCode === 200 && typeof body?.epoch === "string") return body.epoch;
        last = `status ${response.statusCode}`;
        if (response.statusCode === 401) throw new VercelSandboxError("not_started", "the session relay refused the token (401)");
      } catch (error) {
        if (error instanceof VercelSandboxError) throw error;
        last = error instanceof Error ? error.name : "error";
      } finally {
        signal.removeEventListener("abort", stop);
      }
      await new Promise((resolve) => setTimeout(resolve, HEALTH_RETRY_MS));
    }
    throw new VercelSandboxError("not_started", `the session relay did not answer in time (${last})`);
  } finally {
    connection.close();
  }
}

export async function waitForRelay(command: Command, url: string, token: string, timeoutMs: number): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await listeningLine(command, controller.signal);
    return await healthyEpoch(url, token, controller.signal);
  } catch (error) {
    if (error instanceof VercelSandboxError) throw error;
    throw new VercelSandboxError("not_started", controller.signal.aborted ? "the session relay did not listen in time" : "reading the session relay's output failed");
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
