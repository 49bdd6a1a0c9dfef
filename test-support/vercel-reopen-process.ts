/**
 * Test support: another server instance, as a process of its own, reaching a running agent-voice
 * Vercel sandbox with only what the store would hold (the handle, the sealed token) and a Sandbox
 * API client of its own. Run with `node --conditions=react-server --import tsx
 * test-support/vercel-reopen-process.ts`; env LWC_VERCEL_SANDBOX_API_URL, VERCEL_TOKEN,
 * VERCEL_TEAM_ID, VERCEL_PROJECT_ID. Reads `{handle, token, after}` as JSON on stdin, sends codex
 * one `account/read`, prints its answer line on stdout and exits 0; a failure: its message, exit 1.
 */
import { reopenVercelSandbox } from "@/lib/agent-voice/sandbox/vercel/reopen";
import { vercelSandboxApi } from "@/lib/agent-voice/vercel-sandbox-api";

let input = "";
for await (const chunk of process.stdin) input += String(chunk);
const job = JSON.parse(input) as { handle: Parameters<typeof reopenVercelSandbox>[1]; token: string; after: number };

try {
  const api = vercelSandboxApi(process.env.LWC_VERCEL_SANDBOX_API_URL ?? "", process.env);
  let resolveAnswer!: (line: string) => void;
  const answer = new Promise<string>((resolve) => (resolveAnswer = resolve));
  const channel = await reopenVercelSandbox(api, job.handle, job.token, {
    after: job.after,
    onLine: ({ line }) => {
      if ((JSON.parse(line) as { id?: unknown }).id === "other-instance-1") resolveAnswer(line);
    },
  });
  await channel.send(JSON.stringify({ id: "other-instance-1", method: "account/read", params: {} }));
  const ended = channel.ended.then((end) => Promise.reject(new Error(`the channel ended: ${end.reason}`)));
  process.stdout.write(`${await Promise.race([answer, ended])}\n`);
  channel.detach();
} catch (error) {
  process.stdout.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exitCode = 1;
}
