// Abbreviations espeak-ng reads wrongly (measured: docs/normalizer.md). Most
// read the right word but end the sentence at their full stop ("Dr. Smith"
// becomes two sentences, "doctor." and "Smith", with a pause); some are
// spelled out ("vs." "vee ess", "Jr." "jay are", "i.e." "eye ee", "e.g.,"
// before a comma "ee gee"). Ones espeak reads well ("etc.", "e.g." before a
// word, "Inc.", "Dept.", "FYI") are not listed. An abbreviation that ends
// its text or line keeps its full stop.

import { matchEdits, type Rule } from './rule.js'

/** Written form (without its full stop) → spoken words. */
const TITLES: Record<string, string> = {
  Dr: 'Doctor', Mr: 'Mister', Mrs: 'Missus', Ms: 'Miz', Prof: 'Professor', Mt: 'Mount', Gen: 'General', Capt: 'Captain', Sgt: 'Sergeant', Rev: 'Reverend', Fig: 'Figure'
}
/** Before a capitalised word (a name) or a number ("Fig. 3"). */
const TITLE = new RegExp(String.raw`(?<![\p{L}\p{N}_])(?<word>${Object.keys(TITLES).join('|')})\.(?=[ \t]+[A-Z\d])`, 'gu')

/** "St. Louis" is a saint; "Main St. Then" a street, read as espeak does. */
const SAINT: Record<string, string> = { St: 'Saint' }
const SAINT_BEFORE_NAME = /(?<![A-Z][a-z]*[ \t])(?<![\p{L}\p{N}_])(?<word>St)\.(?=[ \t]+[A-Z])/gu

const AFTER_NAME: Record<string, string> = { Jr: 'Junior', Sr: 'Senior' }
const SUFFIX = /(?<=[A-Za-z],?[ \t])(?<word>Jr|Sr)\./g

/** Anywhere as a word. */
const PHRASES: Record<string, string> = {
  'vs.': 'versus',
  vs: 'versus',
  'i.e.': 'that is',
  'a.k.a.': 'also known as',
  aka: 'also known as',
  'approx.': 'approximately',
  'cf.': 'compare',
  'Ph.D.': 'PhD',
  'w/o': 'without',
  'w/': 'with',
  btw: 'by the way',
  BTW: 'by the way',
  IIRC: 'if I recall correctly',
  'tl;dr': 'T L D R',
  'TL;DR': 'T L D R'
}
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const PHRASE = new RegExp(String.raw`(?<![\p{L}\p{N}_.])(?<word>${Object.keys(PHRASES).sort((a, b) => b.length - a.length).map(escape).join('|')})(?=[\s,;:!?)]|$|\.(?!\w))`, 'gu')

/** "e.g." espeak reads as "for example" before a word, but spells it before a comma. */
const EG: Record<string, string> = { 'e.g.': 'for example' }
const EG_BEFORE_COMMA = /(?<![\p{L}\p{N}_.])(?<word>e\.g\.)(?=,)/gu

/** Number words that need a number after them: "No. 5", "ca. 1900". */
const BEFORE_NUMBER: Record<string, string> = { No: 'number', no: 'number', ca: 'circa' }
const BEFORE = /(?<![\p{L}\p{N}_])(?<word>No|no|ca)\.(?=[ \t]*\d)/gu

/** The full stop stays where the abbreviation ends its line or text. */
function keepsStop (text: string, end: number): boolean {
  const rest = /^[ \t]*(?:\n|$)/.exec(text.slice(end, end + 200))
  return rest !== null
}

function expand (table: Record<string, string>, pattern: RegExp): Rule {
  return text => matchEdits(text, pattern, m => {
    const word = m.groups?.word as string
    const end = m.index + m[0].length
    const stop = word.endsWith('.') && keepsStop(text, end) ? '.' : ''
    return { start: m.index, end, text: table[word] + stop }
  })
}

/** Titles and suffixes are matched with their full stop (the stop is not in the table's key). */
function expandDotted (table: Record<string, string>, pattern: RegExp): Rule {
  return text => matchEdits(text, pattern, m => {
    const word = m.groups?.word as string
    const end = m.index + m[0].length
    return { start: m.index, end, text: table[word] + (keepsStop(text, end) ? '.' : '') }
  })
}

export const ABBREVIATION_RULES: readonly Rule[] = [
  expandDotted(TITLES, TITLE),
  expandDotted(SAINT, SAINT_BEFORE_NAME),
  expandDotted(AFTER_NAME, SUFFIX),
  expandDotted(BEFORE_NUMBER, BEFORE),
  expand(EG, EG_BEFORE_COMMA),
  expand(PHRASES, PHRASE)
]
