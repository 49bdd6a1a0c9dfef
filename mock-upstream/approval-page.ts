import { resolveAccount } from "./accounts";
import type { RouteHandler } from "./context";
import { isRecord, sendJson, sendText } from "./http-util";

export const APPROVAL_DECISION_PATH = "/codex/device/decision";

const RESULT_MESSAGES = {
  approved: "Approved — you can return to the app",
  denied: "Denied",
  unknown: "Unknown or expired code",
} as const;

type Outcome = keyof typeof RESULT_MESSAGES;

const PLANS = ["plus", "pro", "free", "team"];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function renderPage(values: { userCode: string; email: string; plan: string }, outcome?: Outcome): string {
  const result = outcome
    ? `<p class="result ${outcome}" data-testid="mock-result" role="status">${escapeHtml(RESULT_MESSAGES[outcome])}</p>`
    : `<p class="result" data-testid="mock-result" role="status"></p>`;
  const planOptions = PLANS.map(
    (plan) => `<option value="${plan}"${plan === values.plan ? " selected" : ""}>${plan}</option>`,
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to Codex with ChatGPT (mock)</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
  main { width: min(26rem, calc(100vw - 2rem)); padding: 2rem; border: 1px solid color-mix(in srgb, CanvasText 18%, transparent); border-radius: 1rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
  p.lead { margin: 0 0 1.5rem; opacity: .8; line-height: 1.4; }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  .hint { font-weight: 400; opacity: .75; }
  input, select { box-sizing: border-box; width: 100%; padding: .6rem .7rem; font-size: 1rem; border-radius: .5rem; border: 1px solid color-mix(in srgb, CanvasText 35%, transparent); background: Canvas; color: CanvasText; }
  input#user_code { font-family: ui-monospace, monospace; letter-spacing: .15em; text-transform: uppercase; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button { flex: 1; padding: .7rem; font-size: 1rem; font-weight: 600; border-radius: .5rem; cursor: pointer; border: 1px solid transparent; }
  button.approve { background: #10a37f; color: #fff; }
  button.deny { background: transparent; color: inherit; border-color: color-mix(in srgb, CanvasText 35%, transparent); }
  :focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  .result { min-height: 1.5em; margin: 1.25rem 0 0; font-weight: 600; }
  .result.approved { color: #0b7a5e; } .result.denied, .result.unknown { color: #b42318; }
  @media (prefers-color-scheme: dark) { .result.approved { color: #4ade80; } .result.denied, .result.unknown { color: #f87171; } }
  footer { margin-top: 1.5rem; font-size: .85rem; opacity: .7; }
</style>
</head>
<body>
<main>
  <h1>Sign in with ChatGPT</h1>
  <p class="lead">Enter the code shown in the app to let it use your account. This is the local mock identity provider.</p>
  <form method="post" action="${APPROVAL_DECISION_PATH}">
    <label for="user_code">Code</label>
    <input id="user_code" name="user_code" data-testid="mock-user-code" required autocomplete="one-time-code"
      autocapitalize="characters" spellcheck="false" placeholder="ABCD-1234" value="${escapeHtml(values.userCode)}">
    <label for="email">Email <span class="hint">(optional, default demo@example.com)</span></label>
    <input id="email" name="email" type="email" data-testid="mock-email" autocomplete="email" placeholder="demo@example.com" value="${escapeHtml(values.email)}">
    <label for="plan">Plan</label>
    <select id="plan" name="plan" data-testid="mock-plan">${planOptions}</select>
    <div class="actions">
      <button type="submit" name="action" value="approve" class="approve" data-testid="mock-approve">Approve</button>
      <button type="submit" name="action" value="deny" class="deny" data-testid="mock-deny">Deny</button>
    </div>
  </form>
  ${result}
  <footer>Mock upstream: no real account is involved.</footer>
</main>
</body>
</html>`;
}

/**
 * GET /codex/device: the code comes filled in, from ?user_code= or else the newest code still
 * waiting for approval. The provider's real page gets no code in its link (it returns no
 * verification URL; the app shows `{issuer}/codex/device`), so the app's link stays the real
 * one and the mock page reads the code itself: the demo's one person approves without typing.
 */
export const handleApprovalPage: RouteHandler = (context, call) => {
  const userCode = call.url.searchParams.get("user_code") ?? context.devices.newestPendingCode() ?? "";
  sendText(call.response, 200, "text/html; charset=utf-8", renderPage({ userCode, email: "", plan: PLANS[0]! }));
};

/** POST /codex/device/decision: the page's form (HTML answer) or JSON `{user_code, email?, plan?, action}` (JSON answer). */
export const handleApprovalDecision: RouteHandler = (context, call) => {
  const fields = isRecord(call.body.value) ? call.body.value : {};
  const text = (name: string) => (typeof fields[name] === "string" ? (fields[name] as string).trim() : "");
  const userCode = text("user_code");
  const email = text("email");
  const plan = PLANS.includes(text("plan")) ? text("plan") : PLANS[0]!;
  const action = text("action");

  let outcome: Outcome;
  if (action === "approve") {
    outcome = context.devices.approve(userCode, resolveAccount({ email: email || undefined, plan })) ? "approved" : "unknown";
  } else if (action === "deny") {
    outcome = context.devices.deny(userCode) ? "denied" : "unknown";
  } else {
    return sendJson(call.response, 400, { error: "invalid_action", message: "action must be approve or deny" });
  }
  const status = outcome === "unknown" ? 404 : 200;
  if (call.body.kind === "json") {
    return sendJson(call.response, status, { ok: outcome !== "unknown", result: outcome, message: RESULT_MESSAGES[outcome] });
  }
  sendText(call.response, status, "text/html; charset=utf-8", renderPage({ userCode, email, plan }, outcome));
};
