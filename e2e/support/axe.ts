import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

interface ReportedViolation {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

type AxeViolations = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"];

function reported(violations: AxeViolations): ReportedViolation[] {
  return violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact ?? "unknown",
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(" ")),
  }));
}

/** Run axe over the whole page and keep only the violations that block people: serious and critical. */
export async function seriousAccessibilityViolations(page: Page): Promise<ReportedViolation[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return reported(results.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical"));
}

/** Every violation, whatever its impact, inside the elements `selector` matches. */
export async function allAccessibilityViolationsIn(page: Page, selector: string): Promise<ReportedViolation[]> {
  const results = await new AxeBuilder({ page }).include(selector).analyze();
  return reported(results.violations);
}
