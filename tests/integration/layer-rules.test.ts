/**
 * The layer rules (eslint-layers.mjs) as the project's own ESLint configuration applies them: each
 * forbidden import is an error `npm run lint` fails on, and the imports each layer may make pass.
 */
import { join } from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The layer errors ESLint reports for `code` placed at `file`. */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((message) => message.ruleId === "layers/imports").map((message) => message.message);
}

describe("layer rules", () => {
  it("components import only lib/client: lib/server, lib/stores or the logger are errors, by alias, relative path or import()", async () => {
    const code = [
      'import { createProviderHandler } from "@/lib/server/handler";',
      'import { LOG_PREFIX } from "../lib/logger";',
      'export const later = () => import("@/lib/stores");',
      "export { createProviderHandler, LOG_PREFIX };",
    ].join("\n");
    const errors = await layerErrors("components/some-panel.tsx", code);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toContain("components import only lib/client");
    const allowed = 'import { createProviderProxy } from "@/lib/client/provider-proxy";\nimport { Icon } from "./icons";\nexport { createProviderProxy, Icon };';
    expect(await layerErrors("components/some-panel.tsx", allowed)).toEqual([]);
  });

  it("a component in a feature folder may import the other folders of components/ and lib/client, and nothing else of ours", async () => {
    const allowed = [
      'import { ModalDialog } from "../ui/modal-dialog";',
      'import { VoiceDialog } from "@/components/voice/voice-dialog";',
      'import { useConversations } from "../conversations/use-conversations";',
      'import { ProviderApp } from "../provider-app";',
      'import { sendTurn } from "@/lib/client/turn-actions";',
      "export { ModalDialog, VoiceDialog, useConversations, ProviderApp, sendTurn };",
    ].join("\n");
    expect(await layerErrors("components/chat/some-panel.tsx", allowed)).toEqual([]);
    for (const target of ["@/lib/server/json", "../../lib/stores", "@/lib/agent-voice/defaults"]) {
      expect(await layerErrors("components/chat/some-panel.tsx", `export * from "${target}";`), target).toHaveLength(1);
    }
  });

  it("nothing under lib/ imports test-support/, mock-upstream/ or tests/", async () => {
    for (const target of ["@/test-support/free-port", "@/mock-upstream/server", "@/tests/integration/harness", "../../e2e/fixtures"]) {
      const errors = await layerErrors("lib/server/some-module.ts", `export * from "${target}";`);
      expect(errors, target).toHaveLength(1);
    }
  });

  it("a lib test may use test-support/ and the mock, but not the integration harness", async () => {
    expect(await layerErrors("lib/stores/some.test.ts", 'export * from "@/test-support/store-helpers";\nexport * from "@/mock-upstream/server";')).toEqual([]);
    const errors = await layerErrors("lib/client/some.test.ts", 'export * from "@/tests/integration/harness";');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("belongs in tests/integration/");
  });

  it("lib/upstream imports nothing else of ours", async () => {
    expect(await layerErrors("lib/upstream/some.ts", 'export * from "./http";\nexport * from "@/lib/upstream/types";')).toEqual([]);
    for (const target of ["@/lib/logger", "../server/json", "@/lib/shared/base-path"]) {
      expect(await layerErrors("lib/upstream/some.ts", `export * from "${target}";`), target).toHaveLength(1);
    }
  });

  it("the logger sits below lib/server and agent voice: it imports nothing of ours, and agent voice never imports lib/server", async () => {
    expect(await layerErrors("lib/logger.ts", 'export * from "./server/json";')).toHaveLength(1);
    expect(await layerErrors("lib/error-codes.ts", 'export * from "./server/json";')).toHaveLength(1);
    expect(await layerErrors("lib/agent-voice/some.ts", 'export * from "@/lib/server/http/json";')).toHaveLength(1);
    expect(await layerErrors("lib/agent-voice/some.ts", 'export * from "@/lib/logger";\nexport * from "../stores/types";')).toEqual([]);
  });

  describe("lib/server's feature folders", () => {
    /** Each folder with an import inside lib/server it may make, and ones it may not (alias, relative path or import()). */
    const cases: { file: string; allowed: string[]; forbidden: string[]; why: string }[] = [
      {
        file: "lib/server/http/some.ts",
        allowed: ["./json", "@/lib/server/http/router", "@/lib/upstream/types", "@/lib/error-codes"],
        forbidden: ["../session/record", "@/lib/server/models/backend", "../context", "@/lib/server/options", "../handler"],
        why: "lib/server/http is the plumbing",
      },
      {
        file: "lib/server/session/some.ts",
        allowed: ["../http/api-error", "./record", "../context", "@/lib/server/options", "@/lib/stores/types"],
        forbidden: ["../siwc/client", "@/lib/server/models/backend", "../voice/limit", "../handler", "../session-provider"],
        why: "lib/server/session (the login session) sits below every feature",
      },
      {
        file: "lib/server/siwc/some.ts",
        allowed: ["../session/manager", "../http/cookies", "./store", "../options"],
        forbidden: ["../models/backend", "@/lib/server/responses/route", "../agent-voice/routes"],
        why: "lib/server/siwc (the Sign in with ChatGPT flow)",
      },
      {
        file: "lib/server/models/some.ts",
        allowed: ["../session/capabilities", "./backend", "../http/upstream-log", "../context"],
        forbidden: ["../responses/body", "../siwc/store", "../voice/failure", "../handler"],
        why: "lib/server/models (the model backends and GET /models)",
      },
      {
        file: "lib/server/responses/some.ts",
        allowed: ["../models/backend", "../session/manager", "./headers", "../history/person-instructions"],
        forbidden: ["../voice/limit", "../siwc/loopback", "../agent-voice/body"],
        why: "lib/server/responses (POST /responses)",
      },
      {
        file: "lib/server/voice/some.ts",
        allowed: ["../session/capabilities", "./failure", "../http/json-body"],
        forbidden: ["../models/backend", "../agent-voice/routes", "../responses/route"],
        why: "lib/server/voice (POST /realtime)",
      },
      {
        file: "lib/server/agent-voice/some.ts",
        allowed: ["../voice/limit", "../models/backend", "../session/record", "@/lib/agent-voice/types"],
        forbidden: ["../responses/route", "../siwc/client", "../handler"],
        why: "lib/server/agent-voice checks models",
      },
      {
        file: "lib/server/history/some.ts",
        allowed: ["../session/manager", "../http/json-body", "./schemas", "../context"],
        forbidden: ["../models/route", "../responses/route", "../siwc/store"],
        why: "lib/server/history (the chat history routes)",
      },
    ];
    for (const { file, allowed, forbidden, why } of cases) {
      it(`${file.split("/")[2]}/ imports only the folders it may`, async () => {
        expect(await layerErrors(file, allowed.map((target) => `export * from "${target}";`).join("\n"))).toEqual([]);
        for (const target of forbidden) {
          const errors = await layerErrors(file, `export const later = () => import("${target}");`);
          expect(errors, target).toHaveLength(1);
          expect(errors[0]).toContain(why);
        }
      });
    }

    it("the handler and the other top-level files wire them all together", async () => {
      const everything = ["./agent-voice/routes", "./siwc/routes", "./models/backend", "./responses/route", "./voice/route", "./session/manager", "./http/router"];
      expect(await layerErrors("lib/server/handler.ts", everything.map((target) => `export * from "${target}";`).join("\n"))).toEqual([]);
    });
  });

  it("lib/shared (the base paths, read by the browser and the server) imports nothing else of ours; the browser side and lib/server may import it", async () => {
    expect(await layerErrors("lib/shared/some.ts", 'export * from "./base-path";')).toEqual([]);
    for (const target of ["@/lib/client/session-api", "../server/http/json", "@/lib/upstream/types", "@/lib/logger"]) {
      const errors = await layerErrors("lib/shared/some.ts", `export * from "${target}";`);
      expect(errors, target).toHaveLength(1);
      expect(errors[0]).toContain("lib/shared holds plain helpers");
    }
    for (const file of ["lib/client/some.ts", "components/chat/some.tsx", "lib/server/siwc/some.ts", "lib/server/options.ts"]) {
      expect(await layerErrors(file, 'export * from "@/lib/shared/base-path";'), file).toEqual([]);
    }
  });

  it("lib/client imports nothing server-side", async () => {
    expect(await layerErrors("lib/client/some.ts", 'export * from "@/lib/error-codes";')).toEqual([]);
    for (const target of ["@/lib/server/json", "@/lib/provider-app", "../stores/types"]) {
      expect(await layerErrors("lib/client/some.ts", `export * from "${target}";`), target).toHaveLength(1);
    }
  });
});
