import "server-only";
/** One row of the doctor's table. `detail` is one line, never a secret, a token or a cookie. */
export interface CheckResult {
  check: string;
  status: CheckStatus;
  detail: string;
}

/** `fail` makes `npm run doctor` exit non-zero; `warn` is worth reading but not wrong everywhere. */
type CheckStatus = "ok" | "warn" | "fail" | "skip";

export const failed = (results: readonly CheckResult[]): boolean => results.some((result) => result.status === "fail");
