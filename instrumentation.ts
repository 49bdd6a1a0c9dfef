/** Runs once when the server starts. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { answerHttpEdgesAtTheServer } = await import("./lib/server/http/http-edges");
  answerHttpEdgesAtTheServer();
  // SIGTERM/SIGINT run the handler's close (registered by lib/provider-app.ts): agent voice's codex
  // processes end and their folders go, also while event streams are open.
  const { installShutdownHooks } = await import("./lib/server/http/shutdown");
  installShutdownHooks();
  // A production server set up to lose sessions says so now (and /api/health names it): lib/deploy-checks.ts.
  const { logDeploymentProblems } = await import("./lib/deploy-checks");
  const { consoleLogger } = await import("./lib/logger");
  logDeploymentProblems(process.env, consoleLogger);
  // Where chats are kept; on a long-lived server the history database opens and migrates now, in
  // the background (lib/history/start.ts), and closes on SIGTERM/SIGINT.
  if (process.env.NEXT_PHASE !== "phase-production-build") {
    const { openHistoryAtStart } = await import("./lib/history/start");
    const { closeOnShutdown } = await import("./lib/server/http/shutdown");
    void openHistoryAtStart(process.env, consoleLogger).then((database) => {
      if (database) closeOnShutdown(() => database.close());
    });
  }
  if (process.env.LWC_CODEX_COMMAND?.trim()) {
    // Session folders a killed server left behind (codex may have logged in them) go now, not at the first start.
    const { sweepLeftoverFolders } = await import("./lib/agent-voice/sandbox/local-process");
    await sweepLeftoverFolders();
  }
}
