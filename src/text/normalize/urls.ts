// Web addresses. espeak-ng spells a scheme out ("aitch tee tee pee ess
// colon slash slash") and reads every path segment with "slash"; it reads a
// bare domain ("example.com") and an e-mail address ("bob.smith@example.com",
// "bob dot smith at example dot com") well, so those are left alone. An
// address with a scheme is read as its host, without "www.": the path is for
// the eye, and the caption still shows it whole.

import { matchEdits, replaceMatch, type Rule } from './rule.js'

const URL = /\b(?:https?|ftp):\/\/([^\s<>()[\]"'`]+)/gi
/** Punctuation that ends the sentence, not the address. */
const TRAILING = /[.,;:!?'"]+$/

export const readUrls: Rule = text => matchEdits(text, URL, m => {
  const trailing = TRAILING.exec(m[0])?.[0].length ?? 0
  const rest = m[1].slice(0, m[1].length - trailing)
  const host = rest.split(/[/?#]/, 1)[0].replace(/^[^@]*@/, '').replace(/:\d+$/, '').replace(/^www\./i, '')
  if (host === '') return undefined
  return { ...replaceMatch(m, host), end: m.index + m[0].length - trailing }
})
