// A lexicon file's bytes to a Lexicon, by its form: PLS (XML) or the plain
// JSON map. Bounded by LEXICON_LIMITS.bytes.

import { invalidLexicon } from '../text/errors.js'
import { parseJsonLexicon } from '../text/lexicon/json-map.js'
import { LEXICON_LIMITS, type Lexicon } from '../text/lexicon/lexicon.js'
import { parsePls } from '../text/lexicon/pls.js'

export type LexiconFormat = 'pls' | 'json'

export function readLexicon (source: string, format: LexiconFormat, name: string): Lexicon {
  if (Buffer.byteLength(source) > LEXICON_LIMITS.bytes) {
    throw invalidLexicon(`Expected at most ${LEXICON_LIMITS.bytes} bytes for the lexicon but received ${Buffer.byteLength(source)}`)
  }
  if (format === 'pls') return { ...parsePls(source), name }
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch {
    throw invalidLexicon(`Expected a JSON object for the lexicon but received text that is not JSON (${source.length} characters)`)
  }
  return { ...parseJsonLexicon(value), name }
}
