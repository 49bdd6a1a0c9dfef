import "server-only";
/**
 * The answer to every approval-type request `codex app-server` can send: always a refusal. The
 * shapes are the protocol's own "decline" answers (checked against the generated schema by the
 * tests), so the agent is told "no" and carries on without the action.
 */
const DECLINED_REASON = "This application does not allow the agent to run commands, change files or ask for more access.";

const DECLINE_ANSWERS: Readonly<Record<string, unknown>> = {
  "item/commandExecution/requestApproval": { decision: "decline" },
  "item/fileChange/requestApproval": { decision: "decline" },
  // Grants nothing: an empty permission profile, for this turn only.
  "item/permissions/requestApproval": { permissions: {}, scope: "turn" },
  // No answers to any question.
  "item/tool/requestUserInput": { answers: {} },
  "mcpServer/elicitation/request": { action: "decline" },
  // Legacy (v1) approvals.
  applyPatchApproval: { decision: { denied: { rejection: DECLINED_REASON } } },
  execCommandApproval: { decision: { denied: { rejection: DECLINED_REASON } } },
};

export function declineAnswer(method: string): unknown {
  return Object.hasOwn(DECLINE_ANSWERS, method) ? DECLINE_ANSWERS[method] : undefined;
}
