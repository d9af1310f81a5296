// A passage's parts to the sentences a Piper voice speaks, joined as
// piper1-gpl joins inline phonemes: each text part is phonemized on its own
// (with its lexicon overrides applied); a phoneme part is added to the
// sentence before it (a new one when there is none), with a space before it
// when the text before ends with one and after it when the text after starts
// with one; the first sentence of the text after a phoneme part joins that
// sentence too. A boundary (`<s>`, `<p>`) starts a new sentence. Every word
// comes out with its range of the text as sent.

import { sentencePhonemesWithWordsAsync, toCodepoints, type NativeBinding, type PhonemizedSentence, type SentenceWord, type VoiceConfig } from '../../engine/index.js'
import type { BoundaryPart, PhonemePart, TextPart } from '../../text/script.js'
import { originalWords } from '../timing/words.js'
import { applyOverrides } from './overrides.js'

export type PassagePart = TextPart | PhonemePart | BoundaryPart

interface Building {
  phonemes: number[]
  words: SentenceWord[]
}

function append (target: Building, sentence: PhonemizedSentence): void {
  const shift = target.phonemes.length
  for (const p of sentence.phonemes) target.phonemes.push(p)
  for (const w of sentence.words) target.words.push({ ...w, phonemeStart: w.phonemeStart + shift, phonemeEnd: w.phonemeEnd + shift })
}

/** One text part's sentences, overrides applied, words mapped to the text as sent. */
async function textSentences (binding: NativeBinding, part: TextPart, config: VoiceConfig): Promise<PhonemizedSentence[]> {
  const read = await sentencePhonemesWithWordsAsync(binding, part.spoken.text, config)
  return applyOverrides(read, part.overrides, config).map(s => ({ phonemes: s.phonemes, words: originalWords(s.words, part.spoken) }))
}

export async function passageSentences (binding: NativeBinding, parts: readonly PassagePart[], config: VoiceConfig): Promise<PhonemizedSentence[]> {
  const out: Building[] = []
  const space = Array.from(toCodepoints(' ', config.phonemeMap))
  // A sentence is open to a phoneme part (none at the start and after a boundary);
  // the last part was a phoneme part, so the next text's first sentence joins it.
  let open = false
  let joinNext = false
  for (const [i, part] of parts.entries()) {
    if (part.kind === 'boundary') {
      open = false
      joinNext = false
      continue
    }
    if (part.kind === 'phonemes') {
      if (!open) out.push({ phonemes: [], words: [] })
      const target = out[out.length - 1]
      const before = parts[i - 1]
      const after = parts[i + 1]
      if (before?.kind === 'text' && before.spoken.text.endsWith(' ')) target.phonemes.push(...space)
      const phonemes = toCodepoints(part.ipa, config.phonemeMap)
      target.words.push({ phonemeStart: target.phonemes.length, phonemeEnd: target.phonemes.length + phonemes.length, textStart: part.start, textEnd: part.end })
      target.phonemes.push(...phonemes)
      if (after?.kind === 'text' && after.spoken.text.startsWith(' ')) target.phonemes.push(...space)
      open = true
      joinNext = true
      continue
    }
    const sentences = await textSentences(binding, part, config)
    sentences.forEach((sentence, k) => {
      if (k === 0 && joinNext && out.length > 0) append(out[out.length - 1], sentence)
      else out.push({ phonemes: Array.from(sentence.phonemes), words: [...sentence.words] })
    })
    if (sentences.length > 0) open = true
    joinNext = false
  }
  return out.filter(s => s.phonemes.length > 0).map(s => ({ phonemes: Uint32Array.from(s.phonemes), words: s.words }))
}
