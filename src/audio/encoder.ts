// The streaming encoder contract every audio format implements: PCM in as it
// is synthesised, encoded bytes out as soon as the codec has them.

export interface StreamEncoder {
  /** Encodes more 16-bit mono PCM; returns the bytes that are complete now
   * (often empty: codecs hold back until a frame is full). */
  push: (pcm: Int16Array) => Uint8Array
  /** Ends the stream and returns the remaining bytes; frees the encoder. */
  finish: () => Uint8Array
  /** Frees the encoder without output (the request was abandoned). */
  close: () => void
}

/** What a caller may ask of a format beyond its defaults (the WebSocket's
 * `output_format`, e.g. pcm_16000, mp3_22050_32, ulaw_8000). Formats ignore
 * what does not apply to them. */
export interface EncoderOptions {
  /** Output sample rate (pcm: default 24 kHz; mp3: default the voice's own). */
  rate?: number
  /** MP3 bit rate in kb/s (default MP3_BITRATE). */
  bitrate?: number
  /** pcm: G.711 μ-law bytes instead of 16-bit samples. */
  ulaw?: boolean
  /** pcm: G.711 A-law bytes instead of 16-bit samples. */
  alaw?: boolean
  /** pcm: 32-bit little-endian floats in [-1, 1) instead of 16-bit samples (Cartesia's pcm_f32le). */
  float32?: boolean
}

/** Makes an encoder for PCM at `sampleRate`. Runs in an encoder worker. */
export type EncoderFactory = (sampleRate: number, options?: EncoderOptions) => Promise<StreamEncoder>

/** Joins byte chunks into one array (no copy for a single chunk). */
export function concatBytes (chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]
  const total = chunks.reduce((sum, c) => sum + c.length, 0)
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

export const EMPTY = new Uint8Array(0)
