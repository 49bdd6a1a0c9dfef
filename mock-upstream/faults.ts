import { MOCK_FAULTS, type FaultRule, type MockFault } from "./types";

export const DEFAULT_SLOW_FIRST_BYTE_MS = 1500;
export const DEFAULT_SLOW_STREAM_CHUNK_MS = 250;

interface ActiveRule {
  rule: FaultRule;
  /** Infinity when the rule lasts until cleared. */
  remaining: number;
}

function isMockFault(value: unknown): value is MockFault {
  return typeof value === "string" && (MOCK_FAULTS as readonly string[]).includes(value);
}

/** Faults armed through addFault(), counted per rule. */
export class FaultBook {
  private rules: ActiveRule[] = [];

  add(rule: FaultRule): void {
    const times = rule.times ?? 1;
    this.rules.push({ rule: { ...rule }, remaining: times === 0 ? Infinity : times });
  }

  clear(): void {
    this.rules = [];
  }

  /**
   * Consume the first armed rule of `fault` that matches the account (rules without an accountId
   * match everyone; requests without a known account only match those).
   */
  take(fault: MockFault, accountId: string | undefined): FaultRule | undefined {
    const index = this.rules.findIndex(
      (active) => active.rule.fault === fault && (active.rule.accountId === undefined || active.rule.accountId === accountId),
    );
    if (index < 0) return undefined;
    const active = this.rules[index]!;
    active.remaining -= 1;
    if (active.remaining <= 0) this.rules.splice(index, 1);
    return active.rule;
  }

  /** Same match as take(), without consuming. */
  has(fault: MockFault, accountId: string | undefined): boolean {
    return this.rules.some(
      (active) => active.rule.fault === fault && (active.rule.accountId === undefined || active.rule.accountId === accountId),
    );
  }
}

const MARKER = /\[\[mock:([a-z_]+)\]\]/g;

/** Faults named by `[[mock:<fault>]]` markers in a text. */
export function markerFaults(text: string): Set<MockFault> {
  const found = new Set<MockFault>();
  for (const match of text.matchAll(MARKER)) {
    if (isMockFault(match[1])) found.add(match[1]);
  }
  return found;
}

/** Remove markers (and the spaces around them), keeping the rest of the text as typed. */
export function stripMarkers(text: string): string {
  return text.replace(/\s*\[\[mock:[a-z_]+\]\]\s*/g, " ").trim();
}
