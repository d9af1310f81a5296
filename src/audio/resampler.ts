// Sample-rate conversion, streaming. OpenAI's pcm format is 24 kHz and Opus
// takes 8/12/16/24/48 kHz, while Piper voices speak at 16 or 22.05 kHz: a
// band-limited sinc converter, not dropped or repeated samples, keeps the
// audio free of aliasing. The usual ratios go through our polyphase filter
// (polyphase-resampler.ts, about twice libsamplerate's speed and no
// per-stream module compile); a ratio needing more than its MAX_PHASES
// phases (no Piper voice has one) through libsamplerate (WASM), whose
// SRC_SINC_FASTEST has a 97 dB signal-to-noise ratio at 80 % bandwidth.

import { createRequire } from 'node:module'
import type { SRC } from '@alexanderolsen/libsamplerate-js/dist/src.js'
import { concatSamples } from '../engine/audio.js'
import { designPolyphase, PolyphaseResampler } from './polyphase-resampler.js'

const require = createRequire(import.meta.url)
const libsamplerate = require('@alexanderolsen/libsamplerate-js') as typeof import('@alexanderolsen/libsamplerate-js')

/** Zero input fed at the end until the converter's delay line has given up the
 * tail (libsamplerate-js exposes no end-of-input flag). */
const FLUSH_BLOCK = 512

function toFloat (pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length)
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i] / 32768
  return out
}

function toInt16 (samples: Float32Array, length = samples.length): Int16Array {
  const out = new Int16Array(length)
  for (let i = 0; i < length; i++) {
    const s = Math.round(samples[i] * 32768)
    out[i] = s > 32767 ? 32767 : s < -32768 ? -32768 : s
  }
  return out
}

/** A streaming converter: 16-bit mono in, 16-bit mono out. */
export interface Resampler {
  push: (pcm: Int16Array) => Int16Array
  /** The held-back tail, so that the output is exactly round(input × ratio)
   * samples long. Frees the converter. */
  finish: () => Int16Array
  close: () => void
}

export async function createResampler (fromRate: number, toRate: number): Promise<Resampler> {
  const design = designPolyphase(fromRate, toRate)
  if (design !== undefined) return new PolyphaseResampler(design)
  return await LibsamplerateResampler.create(fromRate, toRate)
}

export class LibsamplerateResampler implements Resampler {
  private consumed = 0
  private produced = 0

  private constructor (private readonly src: SRC, private readonly ratio: number) {}

  static async create (fromRate: number, toRate: number): Promise<LibsamplerateResampler> {
    const src = await libsamplerate.create(1, fromRate, toRate, { converterType: libsamplerate.ConverterType.SRC_SINC_FASTEST })
    return new LibsamplerateResampler(src, toRate / fromRate)
  }

  push (pcm: Int16Array): Int16Array {
    if (pcm.length === 0) return new Int16Array(0)
    this.consumed += pcm.length
    // The returned array is a view into WASM memory: toInt16 copies it out.
    const out = toInt16(this.src.full(toFloat(pcm)))
    this.produced += out.length
    return out
  }

  /** The converter's held-back tail, cut to round(input × ratio) samples. */
  finish (): Int16Array {
    const expected = Math.round(this.consumed * this.ratio)
    const parts: Int16Array[] = []
    const zeros = new Float32Array(FLUSH_BLOCK)
    // Each block yields about FLUSH_BLOCK × ratio samples, so a handful suffice.
    for (let i = 0; i < 8 && this.produced < expected; i++) {
      const out = this.src.full(zeros)
      const take = Math.min(out.length, expected - this.produced)
      parts.push(toInt16(out, take))
      this.produced += take
    }
    this.close()
    return concatSamples(parts, n => new Int16Array(n))
  }

  close (): void {
    if (!this.src.isDestroyed) this.src.destroy()
  }
}
