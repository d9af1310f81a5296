// A text part with a lexicon's entries applied: a respelling (alias) is
// written into the text in place of the words (their timing still points at
// the words as written), phonemes become an override of the words' own
// reading, so every other word is read by espeak-ng exactly as before, in
// the same context.

import { invalidLexicon } from '../errors.js'
import type { Edit } from '../normalize/offsets.js'
import { LEXICON_LIMITS } from './lexicon.js'
import type { PhonemeOverride, TextPart } from '../script.js'
import { editSpoken } from '../spoken.js'
import type { LexiconMatcher } from './matcher.js'

export function applyLexicon (part: TextPart, matcher: LexiconMatcher): TextPart {
  if (matcher.empty) return part
  const matches = matcher.find(part.spoken.text)
  if (matches.length === 0) return part
  const edits: Edit[] = []
  const overrides: PhonemeOverride[] = []
  // How much longer the text is, before the current match, once the respellings are in.
  let shift = 0
  for (const { start, end, entry, lexicon } of matches) {
    if (entry.alias !== undefined) {
      edits.push({ start, end, text: entry.alias })
      shift += entry.alias.length - (end - start)
    } else if (entry.ipa !== undefined) {
      overrides.push({ start: start + shift, end: end + shift, ipa: entry.ipa, origin: `${lexicon}, ${entry.label}` })
    }
  }
  const limit = part.spoken.text.length * LEXICON_LIMITS.growth + LEXICON_LIMITS.pronunciationLength
  if (part.spoken.text.length + shift > limit) {
    throw invalidLexicon(`Expected lexicon respellings that make the text at most ${LEXICON_LIMITS.growth} times longer but received ${part.spoken.text.length + shift} characters from ${part.spoken.text.length}`)
  }
  return { ...part, spoken: editSpoken(part.spoken, edits), overrides: [...part.overrides, ...overrides] }
}
