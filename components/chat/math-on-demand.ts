import { onDemand } from "@/lib/client/on-demand";

/** KaTeX with Streamdown's maths plugin (math-renderer.ts), downloaded when the first answer with maths renders. */
export const mathRenderer = onDemand(() => import("./math-renderer"));
