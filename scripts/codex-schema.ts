/**
 * `npm run codex:schema [-- --out DIR]`: the JSON schema of the pinned codex app-server protocol
 * (`codex app-server generate-json-schema --experimental`), generated from the binary itself.
 * Without --out it prints the shared cache folder the tests validate against (made once).
 * Tests: loadProtocolValidator() in test-support/fake-app-server/protocol-schema.ts.
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { codexExecutable, protocolSchemaDir } from "../test-support/fake-app-server/protocol-schema";

const outIndex = process.argv.indexOf("--out");
if (outIndex >= 0) {
  const out = process.argv[outIndex + 1];
  if (!out) {
    console.error("usage: npm run codex:schema [-- --out DIR]");
    process.exit(2);
  }
  execFileSync(codexExecutable(), ["app-server", "generate-json-schema", "--experimental", "--out", resolve(out)], { stdio: "inherit" });
  console.log(resolve(out));
} else {
  console.log(protocolSchemaDir());
}
