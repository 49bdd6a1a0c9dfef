import { describe, expect, it } from "vitest";
import { fitWithin, IMAGE_LIMITS, imageFileProblem } from "./image-attachments";

describe("image bounds", () => {
  it("keeps images whose longer edge fits, and never enlarges", () => {
    expect(fitWithin(800, 600, 2048)).toEqual({ width: 800, height: 600 });
    expect(fitWithin(2048, 10, 2048)).toEqual({ width: 2048, height: 10 });
  });

  it("scales a phone photo down to the longer-edge bound, keeping its shape", () => {
    expect(fitWithin(4032, 3024, IMAGE_LIMITS.maxEdgePx)).toEqual({ width: 2048, height: 1536 });
    expect(fitWithin(3024, 4032, IMAGE_LIMITS.maxEdgePx)).toEqual({ width: 1536, height: 2048 });
    expect(fitWithin(10000, 1, 2048)).toEqual({ width: 2048, height: 1 });
  });

  it("keeps a message's images inside the default body limit and Vercel's 4.5 MB, with room for text", () => {
    const imagesOfOneMessage = IMAGE_LIMITS.maxImages * IMAGE_LIMITS.maxDataUrlChars;
    expect(imagesOfOneMessage).toBeLessThanOrEqual(3_000_000);
    expect(imagesOfOneMessage).toBeLessThan(4_000_000);
    expect(4_000_000).toBeLessThan(4.5 * 1000 * 1000);
  });

  it("refuses wrong types and oversized files before anything is read", () => {
    expect(imageFileProblem({ name: "notes.pdf", type: "application/pdf", size: 1000 })).toMatch(/isn't an image/);
    expect(imageFileProblem({ name: "huge.jpg", type: "image/jpeg", size: 30 * 1024 * 1024 })).toMatch(/too large/);
    expect(imageFileProblem({ name: "photo.jpg", type: "image/jpeg", size: 5 * 1024 * 1024 })).toBeNull();
    expect(imageFileProblem({ name: "anim.gif", type: "image/gif", size: 10 })).toBeNull();
  });
});
