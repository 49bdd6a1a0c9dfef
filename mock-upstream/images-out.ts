import { randomBytes } from "node:crypto";
import { isRecord } from "./http-util";
import { encodePng } from "./images-png";

/** The image_generation tool of a request, when it asked for one. */
export function imageGenerationTool(tools: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools.filter(isRecord).find((tool) => tool.type === "image_generation");
}

/** `[[mock:image_refusal]]` in the prompt makes the generation refused, as a moderation block is. */
export const IMAGE_REFUSAL_MARKER = "[[mock:image_refusal]]";

export const GENERATED_SIZE = { width: 256, height: 256 } as const;

/**
 * A real PNG drawn from the prompt: a gradient whose colours come from the prompt's hash, with
 * coarse blocks for partial image `step` of `steps` (sharper with each step, full detail at the end).
 */
export function generatedPng(prompt: string, step: number, steps: number): Buffer {
  const seed = [...prompt].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7);
  const [r0, g0, b0] = [seed & 0xff, (seed >> 8) & 0xff, (seed >> 16) & 0xff];
  const block = step >= steps ? 1 : 2 ** (steps - step + 2);
  const { width, height } = GENERATED_SIZE;
  return encodePng(width, height, (x, y) => {
    const bx = Math.floor(x / block) * block;
    const by = Math.floor(y / block) * block;
    return [(r0 + bx) & 0xff, (g0 + by) & 0xff, (b0 + ((bx + by) >> 1)) & 0xff];
  });
}

export function imageCallId(): string {
  return `ig_${randomBytes(24).toString("hex")}`;
}

/** How many partial images to stream: the tool's `partial_images` (0–3), default 0. */
export function partialImageCount(tool: Record<string, unknown>): number {
  const asked = typeof tool.partial_images === "number" ? Math.floor(tool.partial_images) : 0;
  return Math.max(0, Math.min(3, asked));
}
