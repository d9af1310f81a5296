// MP3 through LAME compiled to WebAssembly (wasm-media-encoders). LAME takes
// the MPEG sample rates, which include the Piper voices' 16 and 22.05 kHz, so
// the voice's own rate is kept. Constant 64 kb/s: transparent for a mono
// voice at these rates, and measured faster than VBR (scripts/bench-encoders.ts).

import { createMp3Encoder as createLame, type WasmMediaEncoder } from 'wasm-media-encoders'
import type { StreamEncoder } from './encoder.js'
import { EncodingError } from './errors.js'
import { createResampler } from './resampler.js'

const MPEG_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const
type MpegRate = typeof MPEG_RATES[number]
export const MP3_BITRATE = 64

function isMpegRate (rate: number): rate is MpegRate {
  return (MPEG_RATES as readonly number[]).includes(rate)
}

type Lame = WasmMediaEncoder<'audio/mpeg'>

/** LAME instances of streams that ended, for the next streams of this
 * worker: wasm-media-encoders compiles its module for every instance (~10 ms
 * of CPU, measured), while configure() on a used one only starts a fresh
 * LAME state in its memory. Bounded: a burst's extra instances are dropped. */
const idle: Lame[] = []
const MAX_IDLE = 8

function release (lame: Lame): void {
  if (idle.length < MAX_IDLE) idle.push(lame)
}

export async function createMp3Encoder (sampleRate: number): Promise<StreamEncoder> {
  // Any other rate (no Piper voice has one) is converted to 24 kHz first.
  const resampler = isMpegRate(sampleRate) ? undefined : await createResampler(sampleRate, 24_000)
  const lame = idle.pop() ?? await createLame()
  lame.configure({ channels: 1, sampleRate: isMpegRate(sampleRate) ? sampleRate : 24_000, bitrate: MP3_BITRATE })
  let closed = false
  /** Set when LAME threw: its memory may be in any state, so it is not reused. */
  let failed = false
  const encode = (pcm: Int16Array): Uint8Array => {
    if (pcm.length === 0) return new Uint8Array(0)
    const samples = new Float32Array(pcm.length)
    for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i] / 32768
    try {
      // The result is a view into the encoder's WASM memory, reused by the
      // next call: copy it out.
      return lame.encode([samples]).slice()
    } catch (error) {
      failed = true
      throw error
    }
  }
  return {
    push: pcm => {
      // After finish or close the instance may already serve another stream.
      if (closed) throw new EncodingError('MP3 encoder used after it ended')
      return encode(resampler === undefined ? pcm : resampler.push(pcm))
    },
    finish: () => {
      if (closed) throw new EncodingError('MP3 encoder used after finish')
      const tail = resampler === undefined ? new Uint8Array(0) : encode(resampler.finish())
      closed = true
      const last = lame.finalize().slice()
      if (!failed) release(lame)
      const out = new Uint8Array(tail.length + last.length)
      out.set(tail)
      out.set(last, tail.length)
      return out
    },
    close: () => {
      // An abandoned stream's LAME is fine: configure() starts it afresh.
      if (!closed && !failed) release(lame)
      closed = true
      resampler?.close()
    }
  }
}
