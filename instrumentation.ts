/** Runs once when the server starts. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { answerHttpEdgesAtTheServer } = await import("./lib/server/http-edges");
  answerHttpEdgesAtTheServer();
}
