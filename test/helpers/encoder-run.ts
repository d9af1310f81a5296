// The encoder tests' input and feed: a tone, pushed in uneven chunks as
// synthesis hands sentences on (one of a single sample among them).

import { concatBytes, type StreamEncoder } from '../../src/audio/encoder.js'
import { tone } from './audio-decode.js'

export const RATE = 22050
export const HZ = 440
export const SECONDS = 1.3
export const input = tone(HZ, SECONDS, RATE)

/** Pushes `pcm` in uneven chunks and collects the bytes, and how many chunks gave any. */
export function run (encoder: StreamEncoder, pcm = input): { bytes: Uint8Array, chunks: number } {
  const out: Uint8Array[] = []
  for (const [start, end] of [[0, 1000], [1000, 1001], [1001, 9000], [9000, pcm.length]]) out.push(encoder.push(pcm.subarray(start, end)))
  out.push(encoder.finish())
  return { bytes: concatBytes(out), chunks: out.filter(c => c.length > 0).length }
}
