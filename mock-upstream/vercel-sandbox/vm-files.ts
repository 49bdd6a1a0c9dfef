/**
 * The Sandbox API's file routes on a fake VM: paths inside the VM mapped onto its writable folders
 * on the host (`<root>/fs/…`), and `fs/write`'s gzipped tar (the SDK packs it with tar-stream).
 * Paths elsewhere in the VM (its read-only image) are refused with a 400.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";
import { VM_WRITABLE_FOLDERS } from "./vm";

/** A path the fake cannot serve: answered 400 with its message. */
export class VmPathError extends Error {}

/** The host path of `path` (resolved against `cwd` inside the VM). */
export function hostPath(vmRoot: string, path: string, cwd: string): string {
  const inside = posix.resolve(cwd, path);
  const top = inside.split("/")[1] ?? "";
  if (!(VM_WRITABLE_FOLDERS as readonly string[]).includes(top)) {
    throw new VmPathError(`the fake VM writes only under ${VM_WRITABLE_FOLDERS.map((folder) => `/${folder}`).join(", ")}: ${inside}`);
  }
  return join(vmRoot, "fs", inside);
}

/** Writes each regular file of a gzipped tar under `extractDir` (the `x-cwd` header), parents included. */
export async function extractFiles(vmRoot: string, body: Buffer, extractDir: string): Promise<number> {
  const extract = tar.extract();
  let written = 0;
  const done = new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        try {
          if (header.type === "file") {
            const target = hostPath(vmRoot, header.name, extractDir);
            mkdirSync(join(target, ".."), { recursive: true });
            writeFileSync(target, Buffer.concat(chunks));
            chmodSync(target, header.mode ?? 0o644);
            written += 1;
          } else if (header.type === "directory") {
            mkdirSync(hostPath(vmRoot, header.name, extractDir), { recursive: true });
          }
          next();
        } catch (error) {
          next(error as Error);
        }
      });
      stream.on("error", reject);
    });
    extract.on("finish", resolve);
    extract.on("error", reject);
  });
  const gunzip = createGunzip();
  gunzip.on("error", (error) => extract.destroy(error));
  Readable.from([body]).pipe(gunzip).pipe(extract);
  await done;
  return written;
}
