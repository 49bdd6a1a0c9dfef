import { describe, expect, it } from "vitest";
import { renderTable } from "./table";

describe("renderTable", () => {
  it("lines the columns up, one row per check, the result in capitals when it needs reading", () => {
    const table = renderTable([
      { check: "secret", status: "ok", detail: "1 secret" },
      { check: "store", status: "fail", detail: "memory in production" },
      { check: "codex binary", status: "skip", detail: "agent voice is off" },
      { check: "upstream issuer", status: "warn", detail: "slow\n(3 s)" },
    ]);
    expect(table.split("\n")).toEqual([
      "Check            Result  Detail",
      "---------------  ------  --------------------",
      "secret           ok      1 secret",
      "store            FAIL    memory in production",
      "codex binary     skip    agent voice is off",
      "upstream issuer  WARN    slow (3 s)",
    ]);
  });
});
