/**
 * The mock's "voice": a tone around 440 Hz with a gentle pitch glide, shaped into syllables
 * (about four a second) so it sounds like someone talking rather than a test beep.
 */
import { encodeMulaw } from "./mulaw";

export const SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
export const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000;

const SYLLABLE_SECONDS = 0.24;
const AMPLITUDE = 0.5;

/** 20 ms of μ-law silence. */
export const SILENT_FRAME = new Uint8Array(SAMPLES_PER_FRAME).fill(encodeMulaw(0));

export class VoiceTone {
  private sampleIndex = 0;
  private phase = 0;

  /** The next 20 ms of speech as a PCMU payload. */
  nextFrame(): Uint8Array {
    const frame = new Uint8Array(SAMPLES_PER_FRAME);
    for (let i = 0; i < SAMPLES_PER_FRAME; i += 1) {
      const t = this.sampleIndex / SAMPLE_RATE;
      const syllable = (t % SYLLABLE_SECONDS) / SYLLABLE_SECONDS;
      // Rise and fall within each syllable, with a short gap between syllables.
      const envelope = syllable < 0.85 ? Math.sin((Math.PI * syllable) / 0.85) : 0;
      const frequency = 440 + 40 * Math.sin(2 * Math.PI * 0.7 * t);
      this.phase += (2 * Math.PI * frequency) / SAMPLE_RATE;
      const sample = AMPLITUDE * envelope * (0.8 * Math.sin(this.phase) + 0.2 * Math.sin(2 * this.phase));
      frame[i] = encodeMulaw(sample * 32_767);
      this.sampleIndex += 1;
    }
    return frame;
  }

  /** Start the next utterance from the beginning of a syllable. */
  restart(): void {
    this.sampleIndex = 0;
  }
}
