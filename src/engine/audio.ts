// Float samples to 16-bit PCM, per sentence, as current Piper does it, and
// the silence between sentences. Pure functions.

/** Peak below which a sentence is treated as silence. */
const SILENT_PEAK = 1e-8

/** Divides by the peak absolute value, clips to [-1, 1], scales by 32767
 * and truncates toward zero. */
export function floatToPcm16 (samples: Float32Array): Int16Array {
  let peak = 0
  for (let i = 0; i < samples.length; i++) {
    const magnitude = Math.abs(samples[i])
    if (magnitude > peak) peak = magnitude
  }
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
