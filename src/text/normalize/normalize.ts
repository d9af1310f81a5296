// normalizeForSpeech: text as language models write it → text espeak-ng
// reads as meant, with a map from the result back to the original.
//
//   const spoken = normalizeForSpeech('It costs $5 🙂', { language: 'en-us' })
//   spoken.text                        // 'It costs 5 dollars'
//   spoken.toOriginal(9, 10)           // [9, 11]: "5" came from "$5"
//   spoken.toOriginal(11, 18)          // [9, 11]: so did "dollars"
//   spoken.toOriginal(0, 2)            // [0, 2]: untouched text maps to itself
//
// Offsets are UTF-16 code units (JavaScript string indices), end exclusive,
// in both texts. A range inside text a rule wrote maps to the whole of what
// the rule replaced; a range of untouched text maps to itself; a range
// spanning both maps to the union. Nothing maps into text a rule deleted
// (markdown markers, emoji), so a word maps to the word as written.
//
// Rules only touch what espeak-ng reads wrongly (docs/normalizer.md has the
// measured table): ordinary prose comes back unchanged, the same string, so
// its audio stays exactly Piper's. English voices only: for any other
// language the text is returned unchanged (the rules' words are English).

import { ABBREVIATION_RULES } from './abbreviations.js'
import { DATE_TIME_RULES } from './dates.js'
import { dropEmoji } from './emoji.js'
import { MARKDOWN_RULES } from './markdown.js'
import { MONEY_RULES } from './money.js'
import { NUMBER_RULES } from './numbers.js'
import { applyEdits, composeMaps, type RangeMap } from './offsets.js'
import type { Rule } from './rule.js'
import { readUnits } from './units.js'
import { readUrls } from './urls.js'

export interface NormalizeOptions {
  /** The espeak-ng voice that will read the text ("en-us", "de"); rules apply to English ("en…") only. */
  language: string
  /** Emoji dropped (default) or left for espeak-ng to name. */
  emoji?: 'drop' | 'name'
}

export interface SpokenText {
  /** The text to synthesise. */
  readonly text: string
  /** The original text's range [start, end) that produced the spoken range [start, end). */
  toOriginal (start: number, end: number): [number, number]
}

/** Order matters: markdown before URLs (a link's target goes with it), URLs
 * before numbers (a path's digits), money before units and counts ("$3M"),
 * dates and times before ranges ("2024-03-15" is not "2024 to 03"). */
function rules (options: NormalizeOptions): Rule[] {
  return [
    ...MARKDOWN_RULES,
    ...(options.emoji === 'name' ? [] : [dropEmoji]),
    readUrls,
    ...MONEY_RULES,
    ...DATE_TIME_RULES,
    readUnits,
    ...NUMBER_RULES,
    ...ABBREVIATION_RULES
  ]
}

/** The text unchanged, each range mapping to itself. */
export function unchanged (text: string): SpokenText {
  return {
    text,
    toOriginal (start, end) {
      const from = Math.min(text.length, Math.max(0, Math.trunc(start)))
      return [from, Math.max(from, Math.min(text.length, Math.trunc(end)))]
    }
  }
}

export function isEnglish (language: string): boolean {
  return /^en(?:$|[-_])/i.test(language)
}

export function normalizeForSpeech (text: string, options: NormalizeOptions): SpokenText {
  if (!isEnglish(options.language)) return unchanged(text)
  const layers: RangeMap[] = []
  let current = text
  for (const rule of rules(options)) {
    const edits = rule(current)
    if (edits.length === 0) continue
    const applied = applyEdits(current, edits)
    layers.push(applied.map)
    current = applied.text
  }
  // Nothing left to say (a reply of emoji alone): the text as sent, which
  // espeak reads its own way, rather than silence or an empty-text error.
  if (layers.length === 0 || current.trim() === '') return unchanged(text)
  const map = composeMaps(layers)
  return { text: current, toOriginal: (start, end) => map.toSource(start, end) }
}
