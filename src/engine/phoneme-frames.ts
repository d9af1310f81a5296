// Each phoneme's length in frames, from the per-id durations the encoder
// returns (Piper's Ceil node): the ids are laid out as phonemeIds() lays
// them out (BOS, pad, then each phoneme's ids and a pad, then EOS), and a
// phoneme owns its ids and the pad after it. BOS with its pad and EOS are
// entries of their own, so the entries tile the sentence's frames: their sum
// is the frame count the decoder turns into samples (piper1-gpl's alignment
// rule, docs/timing.md). Pure.

/** The symbols Piper puts at either end of a sentence's ids, and between phonemes. */
const PAD = '_'
const BOS = '^'
const EOS = '$'

export interface PhonemeFrames {
  /** Codepoints: BOS, the sentence's phonemes as given (spaces and
   * punctuation included), EOS. */
  phonemes: Uint32Array
  /** Frames of each entry; 0 for a phoneme missing from the voice's map. */
  frames: Uint32Array
}

/** The entries for `phonemes` from `durations` (one float per id, whole
 * numbers), or undefined when the durations do not match the ids that
 * phonemeIds() makes for them (a graph whose Ceil is something else). */
export function phonemeFrames (phonemes: Uint32Array, idMap: Record<string, number[]>, durations: Float32Array): PhonemeFrames | undefined {
  const pad = idMap[PAD]?.length ?? 0
  const entries = new Uint32Array(phonemes.length + 2)
  const frames = new Uint32Array(phonemes.length + 2)
  let id = 0
  const take = (count: number): number => {
    let sum = 0
    // Ids past the durations' end count as none: the count check below refuses them.
    for (let end = id + count; id < end; id++) sum += durations[id] ?? 0
    return sum
  }
  entries[0] = BOS.codePointAt(0) as number
  frames[0] = take((idMap[BOS]?.length ?? 0) + pad)
  for (let i = 0; i < phonemes.length; i++) {
    entries[i + 1] = phonemes[i]
    const ids = idMap[String.fromCodePoint(phonemes[i])]
    frames[i + 1] = ids === undefined ? 0 : take(ids.length + pad)
  }
  entries[entries.length - 1] = EOS.codePointAt(0) as number
  frames[frames.length - 1] = take(idMap[EOS]?.length ?? 0)
  if (id !== durations.length) return undefined
  return { phonemes: entries, frames }
}

/** Frames in all: what the decoder makes samples from (× its hop). */
export function totalFrames (frames: Uint32Array): number {
  let sum = 0
  for (const f of frames) sum += f
  return sum
}
