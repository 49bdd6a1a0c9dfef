import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

interface ReportedViolation {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Run axe over the whole page and keep only the violations that block people: serious and critical. */
export async function seriousAccessibilityViolations(page: Page): Promise<ReportedViolation[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? "unknown",
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" ")),
    }));
}
