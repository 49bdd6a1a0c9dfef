/** Reads how loud a MediaStream is right now, through a WebAudio analyser. */
export interface LevelMeter {
  /** Root mean square of the latest ~20 ms of samples, 0 (silence) to about 1 (full scale). */
  read(): number;
  /** Disconnects the analyser (the stream's tracks are left alone). */
  close(): void;
}

/** Root mean square of a block of samples. */
export function rootMeanSquare(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}

/**
 * A meter over one stream. For a remote WebRTC stream, the stream must also be attached to a media
 * element (muted or playing), or Chromium does not decode it and the analyser reads only zeros.
 */
export function createLevelMeter(context: AudioContext, stream: MediaStream): LevelMeter {
  const source = context.createMediaStreamSource(stream);
  const analyser = context.createAnalyser();
  analyser.fftSize = 1024;
  source.connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  return {
    read() {
      analyser.getFloatTimeDomainData(samples);
      return rootMeanSquare(samples);
    },
    close() {
      source.disconnect();
      analyser.disconnect();
    },
  };
}
