// What the synthesis asks of the lexicons (src/lexicons implements it): for
// a request, the entries that apply to its words. The store and the admin
// API are elsewhere; the synthesis only reads.

import type { LexiconMatcher } from '../text/lexicon/matcher.js'

/** A lexicon a request names (ElevenLabs' pronunciation_dictionary_locators:
 * pronunciation_dictionary_id and version_id); no version: the latest. */
export interface LexiconLocator {
  id: string
  version?: string
}

export interface LexiconQuery {
  /** The voice that speaks the words, and its espeak-ng language (or the SSML language). */
  voice: string
  language: string
  /** The request's API key name (its tenant), when keys are on. */
  key?: string
  /** The lexicons the request names, in its order. */
  named: readonly LexiconLocator[]
}

export interface LexiconSource {
  /** The entries that apply, named ones first, then the key's, the voice's
   * and the global ones; undefined when none. Throws a typed 400 for a named
   * lexicon that does not exist. */
  matcher: (query: LexiconQuery) => LexiconMatcher | undefined
}
