/**
 * Tiny PDFs written byte by byte for tests (unit and e2e): one with a text layer, and one whose page
 * is only an image, as a scan is. Each page is US Letter; text uses the standard Helvetica font.
 */

function escapePdfText(text: string): string {
  return text.replace(/[\\()]/g, (char) => `\\${char}`);
}

/** Assembles numbered objects into a PDF with a correct cross-reference table. */
function buildPdf(objects: string[]): Buffer {
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, "latin1"));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body, "latin1");
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, "latin1");
}

function stream(content: string): string {
  return `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`;
}

/**
 * A PDF with a text layer: one page per entry of `pages`, each entry's lines written top down.
 * Object layout: 1 catalog, 2 page tree, 3 font, then a page and its content stream per page.
 */
export function textPdf(pages: string[][]): Buffer {
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"];
  const kids: string[] = [];
  for (const lines of pages) {
    const pageNumber = objects.length + 1;
    kids.push(`${pageNumber} 0 R`);
    const text = lines.map((line) => `(${escapePdfText(line)}) Tj T*`).join(" ");
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageNumber + 1} 0 R >>`);
    objects.push(stream(`BT /F1 12 Tf 16 TL 72 720 Td ${text} ET`));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${kids.length} >>`;
  return buildPdf(objects);
}

/** A one-page PDF whose page is only a picture (a gray 8×8 image drawn full width): no text layer. */
export function imageOnlyPdf(): Buffer {
  const pixels = Array.from({ length: 64 }, (_, index) => String.fromCharCode(96 + (index % 8) * 16)).join("");
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>",
    stream("q 468 0 0 468 72 200 cm /Im1 Do Q"),
    `<< /Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${pixels.length} >>\nstream\n${pixels}\nendstream`,
  ]);
}
