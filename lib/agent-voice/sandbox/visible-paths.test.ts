/** What the bwrap sandbox shows, as arguments: the host's system list, the command's paths and the extra ones. */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { visiblePathArgs, visiblePaths } from "./visible-paths";

describe("visiblePaths", () => {
  it("lists the system paths that exist here and never /usr, /etc, /opt or /home whole", () => {
    const { links, binds } = visiblePaths([], []);
    const shown = [...links.map((link) => link.link), ...binds.map((bind) => bind.inside)];
    for (const wide of ["/", "/usr", "/etc", "/opt", "/home", "/root", "/var", "/usr/local", "/usr/src", "/usr/bin"]) expect(shown).not.toContain(wide);
    for (const path of ["/etc/ssl/certs", "/usr/share/zoneinfo", "/etc/resolv.conf"]) if (existsSync(path)) expect(shown).toContain(path);
    expect(binds.every((bind) => bind.source === "system")).toBe(true);
  });

  it("adds the command's and the extra paths, each once, unless a shown folder already holds them", () => {
    const command = [
      { host: "/srv/codex/node_modules", inside: "/srv/codex/node_modules", source: "command" as const },
      { host: "/usr/share/zoneinfo/UTC", inside: "/usr/share/zoneinfo/UTC", source: "command" as const },
    ];
    const { binds } = visiblePaths(command, ["/srv/extra"]);
    const added = binds.filter((bind) => bind.source !== "system").map((bind) => [bind.inside, bind.source]);
    expect(added).toEqual(
      existsSync("/usr/share/zoneinfo")
        ? [
            ["/srv/codex/node_modules", "command"],
            ["/srv/extra", "extra"],
          ]
        : [
            ["/srv/codex/node_modules", "command"],
            ["/usr/share/zoneinfo/UTC", "command"],
            ["/srv/extra", "extra"],
          ],
    );
  });
});

describe("visiblePathArgs", () => {
  it("makes the links first, then binds a folder before anything inside it", () => {
    const args = visiblePathArgs({
      links: [{ link: "/lib", target: "usr/lib" }],
      binds: [
        { host: "/h/node", inside: "/opt/app/bin/node", source: "extra" },
        { host: "/opt/app", inside: "/opt/app", source: "extra" },
      ],
    });
    expect(args).toEqual(["--symlink", "usr/lib", "/lib", "--ro-bind", "/opt/app", "/opt/app", "--ro-bind", "/h/node", "/opt/app/bin/node"]);
  });
});
