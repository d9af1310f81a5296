// Refusals of the lexicon store: a lexicon or version that is not there (to
// a request that names it: 400, it can name another; to the admin API: 404),
// and the store's caps.

import { ChorusError } from '../errors.js'

/** A request named a lexicon that is not installed (or not its key's). */
export function namedLexiconMissing (field: string, id: string, version?: string): ChorusError {
  const what = version === undefined ? `"${id}"` : `"${id}" version "${version}"`
  return new ChorusError('ERR_LEXICON_NOT_FOUND', `Expected an installed lexicon for ${field} but received ${what}`, { status: 400, details: { id, ...(version === undefined ? {} : { version }) } })
}

export function lexiconNotFound (id: string, version?: string): ChorusError {
  const what = version === undefined ? `Lexicon not found: ${id}` : `Lexicon version not found: ${id} ${version}`
  return new ChorusError('ERR_LEXICON_NOT_FOUND', what, { status: 404, details: { id, ...(version === undefined ? {} : { version }) } })
}

/** The store holds its cap of lexicons already. */
export function tooManyLexicons (limit: number): ChorusError {
  return new ChorusError('ERR_LEXICON_LIMIT', `Expected at most ${limit} lexicons (delete one first) but received one more`, { status: 409, details: { limit } })
}
