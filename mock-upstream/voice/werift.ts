/**
 * werift, loaded through its CommonJS entry so that one internal bug can be fixed from outside.
 *
 * DTLS fix: werift 0.25.2 numbers the epoch-1 Finished record with the running handshake counter
 * and then resets the counter to 0, so a later application-data record reuses the Finished
 * record's sequence number and Chromium drops it as a replay (one lost SCTP packet, a 1-3 s stall
 * per call). After sendFinished we continue counting from the Finished record instead.
 * The patch reaches into internal file paths, which is why werift is pinned to an exact version.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type * as Werift from "werift";

const require = createRequire(import.meta.url);

interface FlightWithFinished {
  prototype: { sendFinished(this: { dtls: { recordSequenceNumber: number } }, ...args: unknown[]): unknown };
}

const PATCHED = Symbol.for("login-with-chatgpt.werift-dtls-fix");

function continueSequenceAfterFinished(flight: FlightWithFinished): void {
  const prototype = flight.prototype as FlightWithFinished["prototype"] & { [PATCHED]?: true };
  if (prototype[PATCHED]) return;
  const original = prototype.sendFinished;
  prototype.sendFinished = function (...args: unknown[]) {
    const before = this.dtls.recordSequenceNumber;
    const result = original.apply(this, args);
    this.dtls.recordSequenceNumber = before + 1;
    return result;
  };
  prototype[PATCHED] = true;
}

const entry = require.resolve("werift");
const dtlsFlights = path.join(path.dirname(entry), "..", "..", "dtls", "src", "flight");
continueSequenceAfterFinished((require(path.join(dtlsFlights, "client", "flight5.js")) as { Flight5: FlightWithFinished }).Flight5);
continueSequenceAfterFinished((require(path.join(dtlsFlights, "server", "flight6.js")) as { Flight6: FlightWithFinished }).Flight6);

export const werift = require("werift") as typeof Werift;
export type { Werift };
