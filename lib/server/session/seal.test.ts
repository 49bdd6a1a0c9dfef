import { describe, expect, it } from "vitest";
import { createSealer, resolveSecrets } from "./seal";

const OLD = "old-secret-".padEnd(36, "o");
const NEW = "new-secret-".padEnd(36, "n");
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe("createSealer", () => {
  it("seals with the first secret and unseals with any, whatever the list order", async () => {
    const sealedOld = await createSealer([OLD]).seal({ a: 1 }, 60);
    expect(await createSealer([NEW, OLD]).unseal(sealedOld)).toEqual({ a: 1 });
    expect(await createSealer([OLD, NEW]).unseal(sealedOld)).toEqual({ a: 1 });
    const sealedNew = await createSealer([NEW, OLD]).seal({ b: 2 }, 60);
    expect(await createSealer([NEW]).unseal(sealedNew)).toEqual({ b: 2 });
    expect(await createSealer([OLD]).unseal(sealedNew)).toBeNull();
  });

  it("returns null for tampered or foreign data", async () => {
    const sealer = createSealer([NEW]);
    const sealed = await sealer.seal({ a: 1 }, 60);
    expect(await sealer.unseal(sealed.replace(/\*[^*]+~/, "*AAAA~"))).toBeNull();
    expect(await sealer.unseal("not a seal")).toBeNull();
  });

  it("opens a seal it has seen before to the same deeply frozen value, which nobody can change", async () => {
    const sealer = createSealer([NEW]);
    const sealed = await sealer.seal({ nested: { count: 1 } }, 60);
    const first = (await sealer.unseal(sealed)) as { nested: { count: number } };
    expect(() => {
      first.nested.count = 99;
    }).toThrow(TypeError);
    expect(await sealer.unseal(sealed)).toBe(first);
    expect(await sealer.unseal(sealed)).toEqual({ nested: { count: 1 } });
    // A seal remembered by one sealer is still refused by a sealer without its secret.
    expect(await createSealer([OLD]).unseal(sealed)).toBeNull();
  });

  it("does not keep the plaintext in the seal", async () => {
    const sealed = await createSealer([NEW]).seal({ token: "visible-token-value" }, 60);
    expect(sealed).not.toContain("visible-token-value");
  });
});

describe("resolveSecrets", () => {
  it("keeps the configured order and trims", () => {
    expect(resolveSecrets([` ${NEW} `, OLD, ""], silent)).toEqual([NEW, OLD]);
  });

  it("refuses a short secret", () => {
    expect(() => resolveSecrets([NEW, "short"], silent)).toThrow(/secret #2/);
  });
});
