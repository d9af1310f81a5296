// Numbers in the shapes models write that espeak-ng misreads: decades
// ("1990s": "nineteen hundred ninety zee"), ranges ("5-10": "five dash
// ten"), "24/7" ("slash"), simple fractions, "~5" ("tilde"), "#1" ("hash"),
// "2x" ("two ex") and the "M"/"B" of counts ("1.5M users": "one point five
// em"). Plain numbers, ordinals and percentages espeak reads well.

import { matchEdits, replaceMatch, type Rule } from './rule.js'
import { NUMBER } from './spoken-number.js'

const DECADE_WORDS = ['hundreds', 'tens', 'twenties', 'thirties', 'forties', 'fifties', 'sixties', 'seventies', 'eighties', 'nineties']

/** "1990s" → "19 nineties", "2000s" → "2 thousands", "'80s" → "eighties". */
const DECADE = /(?<![\w'’])(?:['’](?<short>\d)0|(?<century>1\d|20)(?<decade>\d)0)s\b/g
const decades: Rule = text => matchEdits(text, DECADE, m => {
  const { short, century, decade } = m.groups as { short?: string, century?: string, decade?: string }
  if (short !== undefined) return replaceMatch(m, DECADE_WORDS[Number(short)])
  if (century === '20' && decade === '0') return replaceMatch(m, '2 thousands')
  return replaceMatch(m, `${century as string} ${DECADE_WORDS[Number(decade)]}`)
})

/** Also "80s" without an apostrophe, only before a space or punctuation: "in the 80s". */
const SHORT_DECADE = /(?<![\w.,'’])(?<decade>[1-9])0s\b/g
const shortDecades: Rule = text => matchEdits(text, SHORT_DECADE, m => replaceMatch(m, DECADE_WORDS[Number(m.groups?.decade)]))

/** "5-10", "1939–1945": both sides of one shape (up to 3 digits, or 4-digit years), rising. Not phone numbers, not dates. */
const RANGE = /(?<![\w.,\-–/:])(?<from>\d{1,4})[ \t]?[-–][ \t]?(?<to>\d{1,4})(?![\w.,\-–/:]\d|\w)/g
const ranges: Rule = text => matchEdits(text, RANGE, m => {
  const { from, to } = m.groups as { from: string, to: string }
  const sameShape = (from.length <= 3 && to.length <= 3) || (from.length === 4 && to.length === 4)
  if (!sameShape || Number(from) >= Number(to)) return undefined
  return replaceMatch(m, `${from} to ${to}`)
})

const FRACTIONS: Record<string, string> = { '1/2': 'one half', '1/3': 'one third', '2/3': 'two thirds', '1/4': 'one quarter', '3/4': 'three quarters', '24/7': '24 7' }
const FRACTION = /(?<![\w.,/])(?<fraction>1\/2|1\/3|2\/3|1\/4|3\/4|24\/7)(?![\w/]|[.,]\d)/g
const fractions: Rule = text => matchEdits(text, FRACTION, m => replaceMatch(m, FRACTIONS[m.groups?.fraction as string]))

// The number goes with its sign, so both words map back to "~5" or "#1".
const APPROX = new RegExp(String.raw`(?<!\S)~[ \t]?(?<amount>${NUMBER})(?![\w.,]\d)`, 'g')
const approximately: Rule = text => matchEdits(text, APPROX, m => replaceMatch(m, `about ${m.groups?.amount as string}`))

const HASH_NUMBER = /(?<![\w#&])#(?<n>\d+)\b/g
const numberSign: Rule = text => matchEdits(text, HASH_NUMBER, m => replaceMatch(m, `number ${m.groups?.n as string}`))

const TIMES = new RegExp(String.raw`(?<![\w.,])(?<amount>${NUMBER})x(?!\w)`, 'g')
const times: Rule = text => matchEdits(text, TIMES, m => replaceMatch(m, `${m.groups?.amount as string} times`))

/** "1.5M users", "7B parameters"; not "4K" (a screen) nor a lower-case "m" (metres, in units.ts). */
const COUNT = new RegExp(String.raw`(?<![\w.,$€£¥])(?<amount>${NUMBER})(?<scale>[MB])(?!\w)`, 'g')
const counts: Rule = text => matchEdits(text, COUNT, m => replaceMatch(m, `${m.groups?.amount as string} ${m.groups?.scale === 'M' ? 'million' : 'billion'}`))

export const NUMBER_RULES: readonly Rule[] = [decades, shortDecades, ranges, fractions, approximately, numberSign, times, counts]
