// A band-limited sample-rate converter for rational ratios (22050 → 24000 Hz
// is 160/147, 16000 → 24000 is 3/2): a Kaiser-windowed sinc low-pass FIR,
// split into one short filter per output phase and computed directly on the
// 16-bit samples. Every input sample counts; none are dropped or repeated.
//
// Why our own: libsamplerate (WASM) cost 1/228 of the audio's duration on one
// core, the largest part of the Opus path's CPU after libopus itself, and
// spent ~10 ms compiling its module for every stream; this filter runs at
// several times that speed with no set-up beyond a small table. The design
// and the stream's bookkeeping are here; the multiply-adds (58 per output
// sample) run in the native addon (native/codec_polyphase.h), in single
// precision with vector instructions: 575 × real time in JavaScript, about
// 4300 × there (README, Audio formats).
//
// The filter: passband to PASSBAND × the lower Nyquist frequency of the two
// rates (flat within ±0.01 dB), stopband from that Nyquist frequency on
// (≥ STOPBAND_DB down), so nothing above the lower Nyquist frequency survives:
// no aliasing when going down, no images when going up. test/audio/resampler.test.ts
// checks both with a sine sweep and checks the level against libsamplerate.

import { loadCodecs, nativeCall, type NativePolyphaseKernel } from './native-codecs.js'

/** Passband edge as a share of the lower Nyquist frequency: 8.8 kHz of a
 * 22.05 kHz voice, the bandwidth libsamplerate's SINC_FASTEST keeps too
 * (a Piper voice has little energy above it). */
export const PASSBAND = 0.8
/** Stopband attenuation the Kaiser window is designed for. */
export const STOPBAND_DB = 90
/** Ratios needing more phases than this (unusual rates) are not handled here. */
export const MAX_PHASES = 1024

function gcd (a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

/** Zeroth-order modified Bessel function of the first kind (series). */
function besselI0 (x: number): number {
  let sum = 1
  let term = 1
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2
    sum += term
    if (term < sum * 1e-17) break
  }
  return sum
}

export interface PolyphaseDesign {
  /** Output samples per `down` input samples. */
  up: number
  down: number
  /** Taps per phase (input samples each output sample reads). */
  taps: number
  /** coefficients[phase × taps + k] */
  coefficients: Float64Array
}

/** The filter for `fromRate` → `toRate`, or undefined if the ratio needs more than MAX_PHASES phases. */
export function designPolyphase (fromRate: number, toRate: number): PolyphaseDesign | undefined {
  const divisor = gcd(fromRate, toRate)
  const up = toRate / divisor
  const down = fromRate / divisor
  if (up > MAX_PHASES) return undefined
  // Frequencies in cycles per input sample.
  const nyquist = 0.5 * Math.min(1, up / down)
  const transition = nyquist * (1 - PASSBAND)
  const cutoff = nyquist - transition / 2
  // Kaiser's formulas: β for the attenuation, length for the transition width.
  const beta = 0.1102 * (STOPBAND_DB - 8.7)
  const length = (STOPBAND_DB - 7.95) / (2.285 * 2 * Math.PI * transition)
  const taps = 2 * Math.ceil(length / 2)
  const half = taps / 2
  const coefficients = new Float64Array(up * taps)
  const i0Beta = besselI0(beta)
  for (let phase = 0; phase < up; phase++) {
    // Output time = input sample (i + phase/up); tap k reads input sample i - half + 1 + k.
    let sum = 0
    for (let k = 0; k < taps; k++) {
      const t = phase / up + half - 1 - k
      const x = 2 * cutoff * t
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x)
      const r = t / half
      const window = Math.abs(r) >= 1 ? 0 : besselI0(beta * Math.sqrt(1 - r * r)) / i0Beta
      const c = 2 * cutoff * sinc * window
      coefficients[phase * taps + k] = c
      sum += c
    }
    // Each phase passes DC at exactly unit gain: no ripple at the phase rate.
    for (let k = 0; k < taps; k++) coefficients[phase * taps + k] /= sum
  }
  return { up, down, taps, coefficients }
}

/** Streaming conversion of 16-bit mono PCM. The output is exactly
 * round(input × toRate / fromRate) samples long once finished. */
export class PolyphaseResampler {
  /** Input samples not yet consumed, from global index `base`; starts with
   * the zeros that stand for the silence before the stream. */
  private buffer: Float32Array
  private filled: number
  private base: number
  /** The next output sample's time in input samples: index + phase / up. */
  private index = 0
  private phase = 0
  private consumed = 0
  private produced = 0
  private readonly half: number
  private readonly kernel: NativePolyphaseKernel

  constructor (private readonly design: PolyphaseDesign) {
    this.half = design.taps / 2
    const { PolyphaseKernel } = loadCodecs()
    this.kernel = nativeCall(() => new PolyphaseKernel(Float32Array.from(design.coefficients), design.up, design.down, design.taps))
    this.buffer = new Float32Array(Math.max(4096, 2 * design.taps))
    this.filled = this.half - 1
    this.base = -(this.half - 1)
  }

  push (pcm: Int16Array): Int16Array {
    this.append(pcm)
    this.consumed += pcm.length
    return this.drain(Number.POSITIVE_INFINITY)
  }

  /** The held-back tail (the filter's look-ahead, against silence after the stream). */
  finish (): Int16Array {
    const total = Math.round(this.consumed * this.design.up / this.design.down)
    this.append(new Int16Array(this.half + this.design.down))
    return this.drain(total - this.produced)
  }

  close (): void {}

  private append (pcm: Int16Array): void {
    const needed = this.filled + pcm.length
    if (needed > this.buffer.length) {
      const grown = new Float32Array(Math.max(needed, 2 * this.buffer.length))
      grown.set(this.buffer.subarray(0, this.filled))
      this.buffer = grown
    }
    for (let i = 0; i < pcm.length; i++) this.buffer[this.filled + i] = pcm[i]
    this.filled += pcm.length
  }

  /** Computes the output samples whose taps are all in the buffer, at most `limit`. */
  private drain (limit: number): Int16Array {
    const { up, down } = this.design
    const available = this.base + this.filled
    // Output m steps on sits at input index + floor((phase + m × down) / up)
    // and reads up to half samples past it: those are ready whose reach is
    // inside the buffer.
    const reach = (available - this.half - this.index) * up - this.phase
    const ready = reach > 0 ? Math.ceil(reach / down) : 0
    const count = Math.max(0, Math.min(ready, limit))
    const start = this.index - this.half + 1 - this.base
    const out = nativeCall(() => this.kernel.run(this.buffer.subarray(0, this.filled), start, this.phase, count))
    const advanced = this.phase + count * down
    this.index += Math.floor(advanced / up)
    this.phase = advanced % up
    this.produced += count
    // Drop the samples no later output reads.
    const keepFrom = this.index - this.half + 1 - this.base
    if (keepFrom > 0) {
      this.buffer.copyWithin(0, keepFrom, this.filled)
      this.filled -= keepFrom
      this.base += keepFrom
    }
    return out
  }
}
