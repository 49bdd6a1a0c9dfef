import type { FileUIPart } from "ai";

/**
 * Bounds for images sent to the model. A phone photo (12 MP, 3–6 MB) is shrunk in the browser so the
 * whole request stays well inside the proxy's body limit (4000000 bytes by default) and Vercel's
 * 4.5 MB request limit, with room for the conversation's text:
 * - accepted types: PNG, JPEG, WebP, GIF; anything else is refused before sending;
 * - files larger than 25 MB are refused before they are read;
 * - the longer edge is at most 2048 px (never enlarged);
 * - the encoded image (its data URL) is at most 1,000,000 characters; larger ones are re-encoded as
 *   JPEG at decreasing quality, then at a smaller size, until they fit;
 * - at most 3 images per message, so one message's images stay under 3 MB of request body.
 */
export const IMAGE_LIMITS = {
  acceptedTypes: ["image/png", "image/jpeg", "image/webp", "image/gif"] as readonly string[],
  maxSourceBytes: 25 * 1024 * 1024,
  maxEdgePx: 2048,
  maxDataUrlChars: 1_000_000,
  /** Attachments per message. */
  maxImages: 3,
} as const;

const JPEG_QUALITIES = [0.85, 0.72, 0.6];
const SHRINK_STEP = 0.75;
const SMALLEST_EDGE_PX = 256;

/** Why a file cannot be attached, in words; null when it can. */
export function imageFileProblem(file: { name: string; type: string; size: number }): string | null {
  if (!IMAGE_LIMITS.acceptedTypes.includes(file.type)) {
    return `“${file.name}” isn't an image this app can send (PNG, JPEG, WebP or GIF).`;
  }
  if (file.size > IMAGE_LIMITS.maxSourceBytes) {
    return `“${file.name}” is too large (${Math.round(file.size / (1024 * 1024))} MB; the limit is 25 MB).`;
  }
  return null;
}

/** The size to draw an image at: its own size when the longer edge fits `maxEdge`, else scaled down to it. */
export function fitWithin(width: number, height: number, maxEdge: number): { width: number; height: number } {
  const longer = Math.max(width, height);
  if (longer <= maxEdge) return { width, height };
  const scale = maxEdge / longer;
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function readAsDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("The image could not be read."));
    reader.readAsDataURL(blob);
  });
}

function drawScaled(bitmap: ImageBitmap, size: { width: number; height: number }): HTMLCanvasElement {
  const canvas = document.createElement("canvas");
  canvas.width = size.width;
  canvas.height = size.height;
  const context = canvas.getContext("2d");
  if (!context) throw new Error("This browser cannot resize images.");
  // JPEG has no transparency: paint white under transparent PNG areas instead of black.
  context.fillStyle = "#fff";
  context.fillRect(0, 0, size.width, size.height);
  context.drawImage(bitmap, 0, 0, size.width, size.height);
  return canvas;
}

/**
 * The image as a file part for the message, shrunk to IMAGE_LIMITS when needed. Small images that
 * already fit are sent as they are (keeping PNG transparency and GIF).
 */
export async function prepareImage(file: File): Promise<FileUIPart> {
  const problem = imageFileProblem(file);
  if (problem) throw new Error(problem);
  const bitmap = await createImageBitmap(file).catch(() => {
    throw new Error(`“${file.name}” could not be read as an image.`);
  });
  try {
    const fits = Math.max(bitmap.width, bitmap.height) <= IMAGE_LIMITS.maxEdgePx;
    if (fits) {
      const original = await readAsDataUrl(file);
      if (original.length <= IMAGE_LIMITS.maxDataUrlChars) return { type: "file", mediaType: file.type, filename: file.name, url: original };
    }
    let edge: number = IMAGE_LIMITS.maxEdgePx;
    while (edge >= SMALLEST_EDGE_PX) {
      const canvas = drawScaled(bitmap, fitWithin(bitmap.width, bitmap.height, edge));
      for (const quality of JPEG_QUALITIES) {
        const url = canvas.toDataURL("image/jpeg", quality);
        if (url.length <= IMAGE_LIMITS.maxDataUrlChars) {
          return { type: "file", mediaType: "image/jpeg", filename: file.name.replace(/\.[^.]+$/, "") + ".jpg", url };
        }
      }
      edge = Math.floor(edge * SHRINK_STEP);
    }
    throw new Error(`“${file.name}” could not be made small enough to send.`);
  } finally {
    bitmap.close();
  }
}
