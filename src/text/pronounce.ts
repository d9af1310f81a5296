// A request's text to the script that says how to speak it, in one order for
// every protocol:
//   1. SSML read into parts (ssml/), or the plain text as one part (trimmed
//      when asked: word offsets still index the text as sent);
//   2. inline phonemes `[[ … ]]` cut out of every text part;
//   3. neighbouring text parts of the same style joined, so espeak-ng reads
//      them in one context (a `<sub>` inside a sentence stays in it);
//   4. each text part normalized (when asked; normalize/);
//   5. each text part's lexicon entries applied (lexicon/): respellings
//      written in, phonemes as overrides of the words' own reading.
// Lexicons come last, so they see the words as they will be read.

import { normalizeForSpeech, unchanged, type SpokenText } from './normalize/index.js'
import { hasInlinePhonemes, splitInlinePhonemes } from './inline-phonemes.js'
import { applyLexicon } from './lexicon/apply.js'
import type { LexiconMatcher } from './lexicon/matcher.js'
import { textPart, type ScriptPart, type ScriptStyle, type TextPart } from './script.js'
import { joinSpoken, offsetSpoken } from './spoken.js'
import { parseSsml } from './ssml/ssml.js'

export interface PronounceOptions {
  /** Read the text as SSML. */
  ssml: boolean
  /** Speak the plain text without its surrounding white space. */
  trim: boolean
  /** Normalize text as language models write it (normalize/). */
  normalize: boolean
  /** The espeak-ng language of the request's voice ('' for a voice that takes characters). */
  language: string
  /** The lexicons that apply to a part spoken in `style`, if any. */
  lexicon?: (style: ScriptStyle) => LexiconMatcher | undefined
}

function plainPart (text: string, trim: boolean): TextPart {
  if (!trim) return textPart(unchanged(text))
  const lead = text.length - text.trimStart().length
  return textPart(offsetSpoken(text.trim(), lead))
}

/** Neighbouring text parts of one style as one (overrides moved along). */
function joinNeighbours (parts: readonly ScriptPart[]): ScriptPart[] {
  const out: ScriptPart[] = []
  for (const part of parts) {
    const last = out.at(-1)
    if (part.kind === 'text' && last?.kind === 'text' && sameStyle(last.style, part.style)) {
      const shift = last.spoken.text.length
      out[out.length - 1] = {
        ...last,
        spoken: joinSpoken([last.spoken, part.spoken]),
        overrides: [...last.overrides, ...part.overrides.map(o => ({ ...o, start: o.start + shift, end: o.end + shift }))]
      }
    } else {
      out.push(part)
    }
  }
  return out
}

function sameStyle (a: ScriptStyle, b: ScriptStyle): boolean {
  return a.voice === b.voice && a.language === b.language && a.rate === b.rate
}

function normalized (part: TextPart, language: string): TextPart {
  const spoken = normalizeForSpeech(part.spoken.text, { language: part.style.language ?? language })
  if (spoken.text === part.spoken.text) return part
  const inner: SpokenText = {
    text: spoken.text,
    toOriginal: (start, end) => {
      const [a, b] = spoken.toOriginal(start, end)
      return part.spoken.toOriginal(a, b)
    }
  }
  return { ...part, spoken: inner }
}

export function pronounce (text: string, options: PronounceOptions): ScriptPart[] {
  let parts: ScriptPart[] = options.ssml ? parseSsml(text, { language: options.language }) : [plainPart(text, options.trim)]
  parts = parts.flatMap(part => part.kind === 'text' && hasInlinePhonemes(part.spoken.text) ? splitInlinePhonemes(part) : [part])
  parts = joinNeighbours(parts)
  return parts.map(part => {
    if (part.kind !== 'text') return part
    const read = options.normalize ? normalized(part, options.language) : part
    const matcher = options.lexicon?.(part.style)
    return matcher === undefined ? read : applyLexicon(read, matcher)
  })
}
