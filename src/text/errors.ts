// Refusals of markup a request or an operator sent: SSML that is not
// well-formed or asks for what the subset lacks, a lexicon that cannot be
// read, phonemes a voice cannot speak. All 400: the sender can fix them, and
// every message says where (line and column, or the lexicon's entry) and what
// was expected.

import { ChorusError, type ChorusErrorOptions } from '../errors.js'
import { registerError } from '../error-registry.js'

/** Where in a markup document something is (1-based, columns in code points). */
export interface MarkupPlace {
  line: number
  column: number
}

export function placeText (place: MarkupPlace): string {
  return `line ${place.line}, column ${place.column}`
}

// Factories, not classes: callers tell these apart by code only.

/** SSML (`"ssml": true`, or a text starting with `<speak>`) that cannot be spoken. */
export function invalidSsml (message: string, options: ChorusErrorOptions = {}): ChorusError {
  return new ChorusError('ERR_INVALID_SSML', message, { status: 400, ...options })
}

/** A lexicon (PLS or JSON) that cannot be installed or used. */
export function invalidLexicon (message: string, options: ChorusErrorOptions = {}): ChorusError {
  return new ChorusError('ERR_INVALID_LEXICON', message, { status: 400, ...options })
}

/** Phonemes (inline, SSML or a lexicon's) with a symbol the voice has no id for. */
export function unknownPhonemeSymbol (message: string, options: ChorusErrorOptions = {}): ChorusError {
  return new ChorusError('ERR_UNKNOWN_PHONEME', message, { status: 400, ...options })
}

registerError('ERR_INVALID_SSML', invalidSsml)
registerError('ERR_INVALID_LEXICON', invalidLexicon)
registerError('ERR_UNKNOWN_PHONEME', unknownPhonemeSymbol)
