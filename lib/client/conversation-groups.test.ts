import { describe, expect, it } from "vitest";
import { groupConversations } from "./conversation-groups";
import type { ConversationSummary } from "./conversation-store";

// Local times, so the test holds in any time zone: Wednesday 15 July 2026, 09:30.
const now = new Date(2026, 6, 15, 9, 30).getTime();
const at = (month: number, day: number, hour = 12, year = 2026) => new Date(year, month, day, hour).getTime();

function summary(id: string, updatedAt: number, flags: Partial<Pick<ConversationSummary, "pinned" | "archived">> = {}): ConversationSummary {
  return { id, title: id, updatedAt, pinned: false, archived: false, ...flags };
}

const shape = (grouped: ReturnType<typeof groupConversations>) => grouped.groups.map((group) => [group.label, group.conversations.map((c) => c.id)]);

describe("groupConversations", () => {
  it("puts each conversation under Today, Yesterday, Previous 7 days, Previous 30 days or its month, by calendar day", () => {
    const grouped = groupConversations(
      [
        summary("earlier today", at(6, 15, 0)),
        summary("just before midnight", new Date(2026, 6, 14, 23, 59).getTime()),
        summary("yesterday morning", at(6, 14, 6)),
        summary("two days ago", at(6, 13)),
        summary("a week ago", at(6, 8, 1)),
        summary("eight days ago", at(6, 7)),
        summary("thirty days ago", at(5, 15, 1)),
        summary("in June", at(5, 2)),
        summary("in May", at(4, 20)),
        summary("late last year", at(11, 31, 12, 2025)),
      ],
      now,
      "en-US",
    );
    expect(shape(grouped)).toEqual([
      ["Today", ["earlier today"]],
      ["Yesterday", ["just before midnight", "yesterday morning"]],
      ["Previous 7 days", ["two days ago", "a week ago"]],
      ["Previous 30 days", ["eight days ago", "thirty days ago"]],
      ["June", ["in June"]],
      ["May", ["in May"]],
      ["December 2025", ["late last year"]],
    ]);
    expect(grouped.groups.map((group) => group.key)).toEqual(["today", "yesterday", "week", "month", "2026-06", "2026-05", "2025-12"]);
  });

  it("leads with Pinned and keeps archived conversations apart, newest first in each", () => {
    const grouped = groupConversations(
      [
        summary("old pin", at(0, 3), { pinned: true }),
        summary("today", at(6, 15, 8)),
        summary("new pin", at(6, 15, 7), { pinned: true }),
        summary("archived", at(6, 15, 6), { archived: true }),
        summary("archived pin", at(6, 1), { archived: true, pinned: true }),
      ],
      now,
      "en-US",
    );
    expect(shape(grouped)).toEqual([
      ["Pinned", ["new pin", "old pin"]],
      ["Today", ["today"]],
    ]);
    expect(grouped.archived.map((c) => c.id)).toEqual(["archived", "archived pin"]);
  });

  it("counts a time after now (a clock running ahead) as today, and leaves no group empty", () => {
    expect(shape(groupConversations([summary("ahead", now + 3_600_000)], now, "en-US"))).toEqual([["Today", ["ahead"]]]);
    expect(groupConversations([], now)).toEqual({ groups: [], archived: [] });
  });
});
