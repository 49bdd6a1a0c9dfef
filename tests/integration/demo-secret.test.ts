import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_DATA_DIR } from "@/lib/history/config";
import { DEMO_DEFAULT_DATA_DIR, demoSecret } from "@/scripts/demo-secret";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function appFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "lwc-demo-secret-"));
  folders.push(folder);
  return folder;
}

describe("the demo's secret", () => {
  it("is made once, kept in the data folder for its owner only, and read back by the next run", () => {
    const folder = appFolder();
    const first = demoSecret({}, folder);
    expect(first.from).toBe("new");
    expect(first.path).toBe(join(folder, ".data", "demo-secret"));
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.path!, "utf8").trim()).toBe(first.secret);
    const second = demoSecret({}, folder);
    expect(second).toEqual({ secret: first.secret, from: "kept", path: first.path });
  });

  it("follows LWC_DATA_DIR, and tightens a kept file others could read", () => {
    const folder = appFolder();
    const made = demoSecret({ LWC_DATA_DIR: "elsewhere" }, folder);
    expect(made.path).toBe(join(folder, "elsewhere", "demo-secret"));
    writeFileSync(made.path!, `${made.secret}\n`, { mode: 0o644 });
    expect(demoSecret({ LWC_DATA_DIR: "elsewhere" }, folder).secret).toBe(made.secret);
    expect(statSync(made.path!).mode & 0o777).toBe(0o600);
  });

  it("uses an LWC_SECRET of your own and writes nothing", () => {
    const folder = appFolder();
    expect(demoSecret({ LWC_SECRET: "mine-0123456789abcdef0123456789abcdef" }, folder)).toEqual({ secret: "mine-0123456789abcdef0123456789abcdef", from: "env" });
    expect(() => statSync(join(folder, ".data"))).toThrow();
  });

  it("uses the app's default data folder", () => {
    expect(DEMO_DEFAULT_DATA_DIR).toBe(DEFAULT_DATA_DIR);
  });
});
