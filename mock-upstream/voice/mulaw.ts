/** G.711 μ-law (PCMU) for 16-bit linear samples. */

const BIAS = 0x84;
const CLIP = 32_635;

export function encodeMulaw(sample: number): number {
  let value = Math.max(-32_768, Math.min(32_767, Math.round(sample)));
  const sign = value < 0 ? 0x80 : 0;
  if (sign) value = -value;
  value = Math.min(value, CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (value & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (value >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function decodeMulaw(byte: number): number {
  const value = ~byte & 0xff;
  const exponent = (value >> 4) & 0x07;
  const magnitude = ((((value & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  return value & 0x80 ? -magnitude : magnitude;
}

/** Root mean square of a μ-law payload, on a 0..1 scale (full-scale sine ≈ 0.707). */
export function mulawRms(payload: Uint8Array): number {
  if (payload.length === 0) return 0;
  let sum = 0;
  for (const byte of payload) {
    const sample = decodeMulaw(byte) / 32_768;
    sum += sample * sample;
  }
  return Math.sqrt(sum / payload.length);
}
