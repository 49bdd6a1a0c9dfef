export { codexExecutable } from "@/test-support/fake-app-server/protocol-schema";

/** True while any process of this process group (the launcher or the native binary) exists. */
export function processGroupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
