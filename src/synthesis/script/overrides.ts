// A lexicon's phonemes in place of espeak-ng's reading of the words they are
// for. The text was phonemized whole, with the words as written, so every
// other word keeps exactly the phonemes it had in that context; only the
// words inside an override's range get the given phonemes (one word, over
// the override's range). Words espeak-ng did not read there (none start in
// the range) leave the text as espeak-ng read it.

import { toCodepoints, type PhonemizedSentence, type SentenceWord, type VoiceConfig } from '../../engine/index.js'
import type { PhonemeOverride } from '../../text/script.js'

/** `sentence` with phonemes [from, to) replaced by `replacement`; its words
 * in that span dropped and `word` (if any) put in their place. */
function splice (sentence: PhonemizedSentence, from: number, to: number, replacement: Uint32Array, word?: SentenceWord): PhonemizedSentence {
  const phonemes = new Uint32Array(sentence.phonemes.length - (to - from) + replacement.length)
  phonemes.set(sentence.phonemes.subarray(0, from))
  phonemes.set(replacement, from)
  phonemes.set(sentence.phonemes.subarray(to), from + replacement.length)
  const shift = replacement.length - (to - from)
  const words: SentenceWord[] = []
  for (const w of sentence.words) {
    if (w.phonemeEnd <= from) words.push(w)
    else if (w.phonemeStart >= to) words.push({ ...w, phonemeStart: w.phonemeStart + shift, phonemeEnd: w.phonemeEnd + shift })
  }
  if (word !== undefined) {
    const at = words.findIndex(w => w.phonemeStart >= from + replacement.length)
    words.splice(at < 0 ? words.length : at, 0, word)
  }
  return { phonemes, words }
}

function overlaps (word: SentenceWord, override: PhonemeOverride): boolean {
  return word.textStart < override.end && word.textEnd > override.start
}

/** `sentences` (one text's, word ranges of that text) with `overrides` applied. */
export function applyOverrides (sentences: PhonemizedSentence[], overrides: readonly PhonemeOverride[], config: VoiceConfig): PhonemizedSentence[] {
  let out = sentences
  // Last first: an override never moves the phonemes of one before it.
  for (const override of [...overrides].sort((a, b) => b.start - a.start)) {
    const first = out.findIndex(s => s.words.some(w => overlaps(w, override)))
    if (first < 0) continue
    out = out.map((sentence, i) => {
      const hit = sentence.words.filter(w => overlaps(w, override))
      if (i < first || hit.length === 0) return sentence
      const from = hit[0].phonemeStart
      const to = (hit.at(-1) as SentenceWord).phonemeEnd
      if (i > first) return splice(sentence, from, to, new Uint32Array(0))
      const replacement = toCodepoints(override.ipa, config.phonemeMap)
      return splice(sentence, from, to, replacement, { phonemeStart: from, phonemeEnd: from + replacement.length, textStart: override.start, textEnd: override.end })
    }).filter(s => s.phonemes.length > 0)
  }
  return out
}
