import { describe, expect, it } from "vitest";
import { documentSteps, imageSteps, sortPicked } from "./attachment-plan";

const file = (name: string, type: string, size = 1000) => ({ name, type, size });
const png = (name: string) => file(name, "image/png");
const kinds = (steps: { kind: string; file?: { name: string }; message?: string }[]) => steps.map((step) => step.file?.name ?? step.message);

describe("picked files", () => {
  it("sorts text files and PDFs from the rest", () => {
    const picked = [png("a.png"), file("notes.md", ""), file("paper.pdf", "application/pdf"), file("song.mp3", "audio/mpeg")];
    const { documents, others } = sortPicked(picked);
    expect(documents.map((one) => one.name)).toEqual(["notes.md", "paper.pdf"]);
    expect(others.map((one) => one.name)).toEqual(["a.png", "song.mp3"]);
  });

  it("reads documents while the message has room for them, then says the limit once", () => {
    const docs = ["a.md", "b.md", "c.md"].map((name) => file(name, "text/markdown"));
    expect(kinds(documentSteps(docs, 0))).toEqual(["a.md", "b.md", "c.md"]);
    expect(kinds(documentSteps(docs, 1))).toEqual(["a.md", "b.md", "Up to 3 documents per message."]);
    expect(kinds(documentSteps(docs, 3))).toEqual(["Up to 3 documents per message."]);
    expect(documentSteps(docs, 0).every((step) => step.kind === "read-document")).toBe(true);
  });

  it("refuses what is no image this app sends, and goes on with the rest", () => {
    const steps = imageSteps([file("song.mp3", "audio/mpeg"), file("pic.bmp", "image/bmp"), png("a.png")], 0);
    expect(steps.map((step) => step.kind)).toEqual(["problem", "problem", "prepare-image"]);
    expect(kinds(steps)[0]).toContain("isn't an image or a document this app can read");
    expect(kinds(steps)[1]).toBe("“pic.bmp” isn't an image this app can send (PNG, JPEG, WebP or GIF).");
  });

  it("refuses an image too large to read before reading it", () => {
    const [step] = imageSteps([file("huge.png", "image/png", 30 * 1024 * 1024)], 0);
    expect(step).toEqual({ kind: "problem", message: "“huge.png” is too large (30 MB; the limit is 25 MB)." });
  });

  it("shrinks images while the message has room, then says the limit once and stops", () => {
    const images = [png("1.png"), png("2.png"), png("3.png")];
    expect(kinds(imageSteps(images, 1))).toEqual(["1.png", "2.png", "Up to 3 images per message."]);
    expect(kinds(imageSteps([...images, file("x.mp3", "audio/mpeg")], 3))).toEqual(["Up to 3 images per message."]);
  });
});
