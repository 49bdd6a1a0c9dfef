import { isRecord } from "./http-util";

/** What the backend takes as an image input: a data URL of one of these types, up to this size. */
const ACCEPTED_IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})$/;

interface ReceivedImage {
  mediaType: string;
  bytes: number;
  /** Pixel size read from the PNG or JPEG header, when it could be read. */
  width?: number;
  height?: number;
}

/** Width and height from a PNG's IHDR or a JPEG's start-of-frame marker. */
export function imageSize(data: Buffer): { width: number; height: number } | undefined {
  if (data.length >= 24 && data.readUInt32BE(0) === 0x89504e47) return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  let offset = 2;
  while (offset + 9 < data.length) {
    if (data[offset] !== 0xff) return undefined;
    const marker = data[offset + 1]!;
    const length = data.readUInt16BE(offset + 2);
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
    }
    offset += 2 + length;
  }
  return undefined;
}

function contentParts(item: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(item.content) ? item.content.filter(isRecord) : [];
}

/** Checks one `input_image` part; returns the backend-style problem, or the image when it is fine. */
function readImagePart(part: Record<string, unknown>, where: string): { image: ReceivedImage } | { problem: string } {
  const url = part.image_url;
  if (typeof url !== "string") return { problem: `Missing required parameter: '${where}.image_url'.` };
  if (/^https?:\/\//.test(url)) return { problem: `Invalid '${where}.image_url': this mock only takes images inline (data URLs).` };
  const match = DATA_URL.exec(url);
  if (!match) return { problem: `Invalid '${where}.image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...'), but got a value with an invalid format.` };
  const mediaType = match[1]!;
  if (!(ACCEPTED_IMAGE_TYPES as readonly string[]).includes(mediaType)) {
    return { problem: `Invalid image type '${mediaType}' in '${where}'. Supported types: ${ACCEPTED_IMAGE_TYPES.join(", ")}.` };
  }
  const data = Buffer.from(match[2]!, "base64");
  const bytes = data.length;
  if (bytes === 0) return { problem: `The image data in '${where}' is empty.` };
  if (bytes > MAX_IMAGE_BYTES) return { problem: `The image in '${where}' is too large (${bytes} bytes; the limit is ${MAX_IMAGE_BYTES}).` };
  return { image: { mediaType, bytes, ...imageSize(data) } };
}

/** Validates every image in the input; the first problem wins. `acceptsImages` is the model's input_modalities check. */
export function validateImageInputs(input: readonly Record<string, unknown>[], model: { slug: string; acceptsImages: boolean }): string | undefined {
  for (const [itemIndex, item] of input.entries()) {
    for (const [partIndex, part] of contentParts(item).entries()) {
      if (part.type !== "input_image") continue;
      if (!model.acceptsImages) return `The '${model.slug}' model does not support image inputs.`;
      const read = readImagePart(part, `input[${itemIndex}].content[${partIndex}]`);
      if ("problem" in read) return read.problem;
    }
  }
  return undefined;
}

/** The images of the last user message, for the reply to name what it received. */
export function imagesInLastUserMessage(input: readonly Record<string, unknown>[]): ReceivedImage[] {
  const last = input.filter((item) => item.role === "user").at(-1);
  if (!last) return [];
  return contentParts(last)
    .filter((part) => part.type === "input_image")
    .map((part) => readImagePart(part, "image"))
    .flatMap((read) => ("image" in read ? [read.image] : []));
}

/** ` You sent 1 image (image/png, 2 KB).` or "" without images. */
export function describeReceivedImages(images: readonly ReceivedImage[]): string {
  if (images.length === 0) return "";
  const list = images
    .map((image) => {
      const size = image.width && image.height ? `, ${image.width}×${image.height}` : "";
      return `${image.mediaType}${size}, ${Math.max(1, Math.round(image.bytes / 1024))} KB`;
    })
    .join("; ");
  return ` You sent ${images.length} ${images.length === 1 ? "image" : "images"} (${list}).`;
}
