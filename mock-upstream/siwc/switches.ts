/**
 * One-shot failures ("switches"), armed through the control API: each fires on the next matching
 * request (or the next `times` ones; 0 = until cleared).
 */
export const SIWC_SWITCHES = [
  // Discovery and keys
  "discovery_server_error",
  "jwks_server_error",
  "jwks_empty",
  // Authorize (applied when the person decides on the consent page)
  "authorize_omit_client_id",
  "authorize_other_client_id",
  "authorize_other_account",
  // Token endpoint (an error reply instead of tokens)
  "token_invalid_grant",
  "token_invalid_refresh_token",
  "token_token_expired",
  "token_refresh_token_expired",
  "token_refresh_token_invalidated",
  "token_invalid_client",
  "token_temporarily_unavailable",
  /** A refresh rotates (the old token is used up), then the connection drops without a reply. */
  "token_drop_after_rotation",
  /** A refresh reply whose id_token names another sub. */
  "refresh_other_account",
  /** A refresh whose grant (reply scope, access token, and every later refresh) lacks chatgpt.tokens.use.direct. */
  "refresh_without_plan_usage",
  // The next token reply's id_token fails one check (the rest of the reply is fine)
  "id_token_bad_signature",
  "id_token_wrong_issuer",
  "id_token_wrong_audience",
  "id_token_wrong_nonce",
  "id_token_expired",
  // Revoke
  "revoke_server_error",
  /** No answer until the client gives up. */
  "revoke_timeout",
  // /v1/responses before the stream: HTTP errors
  "usage_limit_exceeded",
  "user_not_eligible",
  "chatpass_scope_not_authorized",
  "chatpass_invalid_authorization_context",
  "invalid_user",
  "usage_unavailable",
  "user_unavailable",
  "detail_401",
  "detail_403",
  "detail_503",
  // /v1/responses stream faults
  "stream_no_content_type",
  "stream_crlf",
  "stream_eof_no_completed",
  "stream_done_before_completed",
  "stream_incomplete",
  "stream_failed_usage_limit",
  "stream_failed_usage_unavailable",
  "stream_error_event",
  "stream_model_not_found",
  "stream_empty_output",
  "stream_phase",
  "stream_long",
] as const;

export type SiwcSwitch = (typeof SIWC_SWITCHES)[number];

export interface SiwcSwitchRule {
  switch: SiwcSwitch;
  /** Default 1; 0 = until cleared. */
  times?: number;
  /** Token-endpoint switches: only this grant type triggers (and consumes) the rule. */
  grant?: "authorization_code" | "refresh_token";
  /** stream_long: how long the stream runs, default 190000 (past a 180 s deadline). */
  durationMs?: number;
}

interface ArmedRule {
  rule: SiwcSwitchRule;
  remaining: number;
}

export class SiwcSwitches {
  private rules: ArmedRule[] = [];

  arm(rule: SiwcSwitchRule): void {
    const times = rule.times ?? 1;
    this.rules.push({ rule: { ...rule }, remaining: times === 0 ? Infinity : times });
  }

  clear(): void {
    this.rules = [];
  }

  list(): SiwcSwitchRule[] {
    return this.rules.map((armed) => ({ ...armed.rule }));
  }

  /** Consume the first armed rule of `name` (matching the grant type, when the rule names one). */
  take(name: SiwcSwitch, grant?: string): SiwcSwitchRule | undefined {
    const index = this.rules.findIndex((armed) => armed.rule.switch === name && (armed.rule.grant === undefined || armed.rule.grant === grant));
    if (index < 0) return undefined;
    const armed = this.rules[index]!;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.rules.splice(index, 1);
    return armed.rule;
  }

  /** The first armed rule among `names`, consumed. */
  takeFirst(names: readonly SiwcSwitch[], grant?: string): SiwcSwitchRule | undefined {
    for (const name of names) {
      const rule = this.take(name, grant);
      if (rule) return rule;
    }
    return undefined;
  }
}
