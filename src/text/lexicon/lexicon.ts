// A pronunciation lexicon as Chorus uses it, whichever form it came in (W3C
// PLS 1.0 or the plain JSON map): entries of one or more graphemes (a word
// or several, as written) and how to say them, as IPA phonemes or as a
// respelling (an alias, spoken instead). Bounded: an operator can read every
// cap in the README.

export interface LexiconEntry {
  /** The written forms it matches, white space inside each normalised to one space. */
  graphemes: string[]
  /** Exactly one of `ipa` and `alias`. */
  ipa?: string
  alias?: string
  /** Where it is, for messages: `lexeme 3 ("Xyrith")` or `entry "Xyrith"`. */
  label: string
}

export interface Lexicon {
  /** What a message calls it: `lexicon "names" version 3`. */
  name?: string
  /** xml:lang of a PLS lexicon ("en-US"): it applies to voices of that
   * language. Undefined (a JSON map): to every voice. */
  language?: string
  entries: LexiconEntry[]
}

export const LEXICON_LIMITS = Object.freeze({
  /** Bytes of one lexicon file, PLS or JSON. */
  bytes: 1024 * 1024,
  /** Entries (lexemes) of one lexicon. */
  entries: 10_000,
  /** Characters of one grapheme, and of one alias or phoneme string. */
  graphemeLength: 100,
  pronunciationLength: 200,
  /** How many times longer respellings may make a text (and 200 characters more). */
  growth: 10
})

/** White space runs as one space, none at the ends. */
export function normalizeGrapheme (text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim()
}

const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u

export function hasWordCharacter (text: string): boolean {
  return WORD_CHARACTER.test(text)
}

/** Whether a lexicon's language (BCP 47, "en-US") fits a voice's espeak-ng
 * language ("en-us", "en-gb-x-rp"): the same primary language. */
export function languageFits (lexicon: string | undefined, voice: string): boolean {
  if (lexicon === undefined) return true
  const primary = (tag: string): string => tag.toLowerCase().split(/[-_]/)[0]
  return primary(lexicon) === primary(voice)
}
