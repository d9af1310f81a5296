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

/** Makes an encoder for PCM at `sampleRate`. Runs in an encoder worker. */
export type EncoderFactory = (sampleRate: number) => Promise<StreamEncoder>

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
