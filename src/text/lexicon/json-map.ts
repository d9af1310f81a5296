// The plain form of a lexicon: a JSON object from each word (or several
// words) as written to how it is said. A value between slashes is IPA, as
// dictionaries write it ("/zˈɪɹɪθ/"); any other string is a respelling
// spoken instead ("N P C seven"). It applies to every voice (a PLS lexicon
// names its language).
//
//   { "Xyrith": "/zˈɪɹɪθ/", "NPC-7": "N P C seven", "Caer Wyvern": "/kˈaɪɚ wˈaɪvɚn/" }

import { describeValue } from '../../validate.js'
import { invalidLexicon } from '../errors.js'
import { hasWordCharacter, LEXICON_LIMITS, normalizeGrapheme, type Lexicon, type LexiconEntry } from './lexicon.js'

const IPA = /^\/(.*)\/$/su

function refuse (what: string, name: string, value: unknown): never {
  throw invalidLexicon(`Expected ${what} for ${name} but received ${describeValue(value)}`, { details: { entry: name } })
}

export function parseJsonLexicon (value: unknown): Lexicon {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse('a JSON object from words to "/ipa/" or a respelling', 'the lexicon', value)
  const words = Object.entries(value as Record<string, unknown>)
  if (words.length > LEXICON_LIMITS.entries) refuse(`at most ${LEXICON_LIMITS.entries} entries`, 'the lexicon', `${words.length} entries`)
  const entries: LexiconEntry[] = words.map(([word, said]) => {
    const label = `entry ${JSON.stringify(word)}`
    const grapheme = normalizeGrapheme(word)
    if (!hasWordCharacter(grapheme) || grapheme.length > LEXICON_LIMITS.graphemeLength) {
      refuse(`a word with a letter or digit, at most ${LEXICON_LIMITS.graphemeLength} characters`, label, word)
    }
    if (typeof said !== 'string') refuse('"/ipa/" or a respelling (a string)', label, said)
    const ipa = IPA.exec(said.trim())?.[1].trim()
    const text = (ipa ?? said).trim().replace(/\s+/gu, ' ')
    if (text === '' || text.length > LEXICON_LIMITS.pronunciationLength) refuse(`1 to ${LEXICON_LIMITS.pronunciationLength} characters`, label, said)
    return { graphemes: [grapheme], label, ...(ipa !== undefined ? { ipa: text } : { alias: text }) }
  })
  return { entries }
}
