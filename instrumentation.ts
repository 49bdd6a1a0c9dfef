/** Runs once when the server starts. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { refuseFetchForbiddenMethods } = await import("./lib/server/forbidden-methods");
  refuseFetchForbiddenMethods();
}
