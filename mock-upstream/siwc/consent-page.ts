import { ELIGIBILITIES, WORKSPACES, type PendingAuthorization, type SiwcAccount } from "./state";

export const DECISION_PATH = "/api/accounts/authorize/decision";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function options(values: readonly string[], selected: string): string {
  return values.map((value) => `<option value="${value}"${value === selected ? " selected" : ""}>${value}</option>`).join("");
}

interface PageInput {
  pending: PendingAuthorization;
  /** The form's action (absolute path under the issuer). */
  action: string;
  /** On a reauthorization: the registration's person. */
  account: SiwcAccount | undefined;
  consent: boolean;
  defaultEmail: string;
}

/**
 * The authorize page: for a new registration (or prompt=consent) a consent screen with Approve,
 * Identity only and Decline; for a returning client without consent, an account selector
 * (Continue / Cancel). Both submit the same form.
 */
export function renderConsentPage({ pending, action, account, consent, defaultEmail }: PageInput): string {
  const newRegistration = pending.newRegistration;
  const identityFields = newRegistration
    ? `<label for="email">Email</label>
    <input id="email" name="email" type="email" data-testid="siwc-email" value="${escapeHtml(defaultEmail)}">
    <label for="name">Name</label>
    <input id="name" name="name" data-testid="siwc-name" placeholder="Demo User">
    <label for="plan">Plan</label>
    <select id="plan" name="plan" data-testid="siwc-plan">${options(ELIGIBILITIES, "plus")}</select>
    <label for="workspace">Workspace</label>
    <select id="workspace" name="workspace" data-testid="siwc-workspace">${options(WORKSPACES, "personal")}</select>
    <label for="agent_name">Agent name</label>
    <input id="agent_name" name="agent_name" data-testid="siwc-agent-name" value="${escapeHtml(pending.agentNameHint ?? "")}">`
    : `<p class="account" data-testid="siwc-account">${escapeHtml(account?.email ?? "unknown account")}</p>`;
  const buttons = consent
    ? `<button type="submit" name="action" value="approve" class="primary" data-testid="siwc-approve">Approve</button>
      <button type="submit" name="action" value="identity_only" data-testid="siwc-identity-only">Identity only</button>
      <button type="submit" name="action" value="decline" data-testid="siwc-decline">Decline</button>`
    : `<button type="submit" name="action" value="approve" class="primary" data-testid="siwc-approve">Continue</button>
      <button type="submit" name="action" value="decline" data-testid="siwc-decline">Cancel</button>`;
  const heading = consent ? "Allow this app to use your ChatGPT plan?" : "Choose an account";
  const lead = consent
    ? "Approve lets the app sign you in and send requests billed to your ChatGPT plan. Identity only signs you in without plan usage."
    : "Continue as this account.";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in with ChatGPT (mock)</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
  main { width: min(28rem, calc(100vw - 2rem)); padding: 2rem; border: 1px solid color-mix(in srgb, CanvasText 18%, transparent); border-radius: 1rem; }
  h1 { font-size: 1.35rem; margin: 0 0 .5rem; }
  p.lead { margin: 0 0 1rem; opacity: .8; line-height: 1.4; }
  label { display: block; font-weight: 600; margin: .9rem 0 .3rem; }
  input, select { box-sizing: border-box; width: 100%; padding: .55rem .7rem; font-size: 1rem; border-radius: .5rem; border: 1px solid color-mix(in srgb, CanvasText 35%, transparent); background: Canvas; color: CanvasText; }
  .actions { display: flex; gap: .6rem; margin-top: 1.5rem; flex-wrap: wrap; }
  button { flex: 1; padding: .7rem; font-size: 1rem; font-weight: 600; border-radius: .5rem; cursor: pointer; background: transparent; color: inherit; border: 1px solid color-mix(in srgb, CanvasText 35%, transparent); }
  button.primary { background: #10a37f; color: #fff; border-color: transparent; }
  :focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
  footer { margin-top: 1.5rem; font-size: .85rem; opacity: .7; }
</style>
</head>
<body>
<main>
  <h1>${heading}</h1>
  <p class="lead">${lead}</p>
  <form method="post" action="${escapeHtml(action)}">
    <input type="hidden" name="request" value="${escapeHtml(pending.id)}">
    ${identityFields}
    <div class="actions">
      ${buttons}
    </div>
  </form>
  <footer>Mock Sign in with ChatGPT: no real account is involved.</footer>
</main>
</body>
</html>`;
}
