// Float samples to 16-bit PCM, per sentence, as current Piper does it, and
// the silence between sentences. Pure functions.

/** Peak below which a sentence is treated as silence. */
const SILENT_PEAK = 1e-8

/** The largest absolute sample; NaN samples are ignored (they become 0). */
export function peakOf (samples: Float32Array): number {
  let peak = 0
  for (let i = 0; i < samples.length; i++) {
    const magnitude = Math.abs(samples[i])
    if (magnitude > peak) peak = magnitude
  }
  return peak
}

/** Piper's normalisation: divides by the peak absolute value, clips to
 * [-1, 1], scales by 32767 and truncates toward zero. */
export function floatToPcm16 (samples: Float32Array): Int16Array {
  return scaleToPcm16(samples, peakOf(samples))
}

/** Scales by 32767 / `peak`, clipping to ±32767 and truncating toward zero;
 * all zeros when the peak is (near) silence or not a number. */
export function scaleToPcm16 (samples: Float32Array, peak: number): Int16Array {
  const pcm = new Int16Array(samples.length)
  if (!(peak >= SILENT_PEAK)) return pcm // also catches NaN
  const gain = 32767 / peak
  for (let i = 0; i < samples.length; i++) {
    const scaled = samples[i] * gain
    // Int16Array stores by truncation toward zero; clip first.
    pcm[i] = scaled > 32767 ? 32767 : scaled < -32767 ? -32767 : scaled
  }
  return pcm
}

/** Samples of silence for `seconds` at `sampleRate`: floor(rate × seconds). */
export function silenceLength (sampleRate: number, seconds: number): number {
  return Math.floor(sampleRate * seconds)
}

/** Joins sentences with `silenceSamples` zero samples between consecutive
 * ones and none after the last. */
export function joinSentences (sentences: readonly Int16Array[], silenceSamples: number): Int16Array {
  const gaps = Math.max(0, sentences.length - 1) * silenceSamples
  const total = sentences.reduce((sum, s) => sum + s.length, 0) + gaps
  const out = new Int16Array(total)
  let offset = 0
  sentences.forEach((sentence, i) => {
    if (i > 0) offset += silenceSamples
    out.set(sentence, offset)
    offset += sentence.length
  })
  return out
}

/** One array of every part, in order (the part itself when there is one). */
export function concatSamples<T extends Uint8Array | Int16Array | Float32Array> (parts: readonly T[], make: (length: number) => T): T {
  if (parts.length === 1) return parts[0]
  const out = make(parts.reduce((sum, p) => sum + p.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
