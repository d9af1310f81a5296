// Where a text holds words a lexicon knows. Rules:
//   - whole words: a match never starts or ends inside a run of letters,
//     digits and marks ("Xyrith" is not found in "Xyriths");
//   - case: a grapheme with a capital letter matches only as written; an
//     all-lowercase one matches whatever the case ("xyrith" finds "Xyrith" and
//     "XYRITH"); where both fit, the one written with the same case wins
//     (PLS leaves case to the processor; this lets "US" and "us" differ);
//   - white space: one or more white-space characters in the text match one
//     space in a grapheme, so multi-word graphemes match across line breaks;
//   - leftmost first, then the longest ("Caer Wyvern" before "Caer"), then
//     the lexicon given first, then its entry written first.
// Each grapheme is indexed by its first run of letters and digits, so a text
// is read once and each of its words tries only the graphemes that start
// with it.

import type { Lexicon, LexiconEntry } from './lexicon.js'

export interface LexiconMatch {
  /** Range of the text, [start, end). */
  start: number
  end: number
  entry: LexiconEntry
  /** The lexicon's name, for messages. */
  lexicon: string
}

interface Candidate {
  entry: LexiconEntry
  lexicon: string
  /** Characters of the grapheme before its first letter or digit. */
  lead: number
  length: number
  exactCase: boolean
  /** Ends in a letter or digit: the text must not go on with one. */
  wordEnd: boolean
  pattern: RegExp
  order: number
}

const WORD_RUN = /[\p{L}\p{N}\p{M}]+/gu
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u

function escapeForPattern (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

function candidate (entry: LexiconEntry, lexicon: string, grapheme: string, order: number): { key: string, candidate: Candidate } | undefined {
  const first = /[\p{L}\p{N}\p{M}]+/u.exec(grapheme)
  if (first === null) return undefined
  const exactCase = grapheme !== grapheme.toLowerCase()
  const source = grapheme.split(' ').map(escapeForPattern).join('\\s+')
  return {
    key: first[0].toLowerCase(),
    candidate: {
      entry,
      lexicon,
      lead: first.index,
      length: grapheme.length,
      exactCase,
      wordEnd: WORD_CHARACTER.test(grapheme.at(-1) ?? ''),
      pattern: new RegExp(source, exactCase ? 'uy' : 'iuy'),
      order
    }
  }
}

export class LexiconMatcher {
  private readonly index = new Map<string, Candidate[]>()

  /** Lexicons in order of precedence: the first one's entry wins a tie. */
  constructor (lexicons: readonly Lexicon[]) {
    let order = 0
    for (const lexicon of lexicons) {
      for (const entry of lexicon.entries) {
        for (const grapheme of entry.graphemes) {
          const made = candidate(entry, lexicon.name ?? 'lexicon', grapheme, order++)
          if (made === undefined) continue
          const list = this.index.get(made.key) ?? []
          list.push(made.candidate)
          this.index.set(made.key, list)
        }
      }
    }
    for (const list of this.index.values()) {
      list.sort((a, b) => b.length - a.length || Number(b.exactCase) - Number(a.exactCase) || a.order - b.order)
    }
  }

  get empty (): boolean {
    return this.index.size === 0
  }

  /** The matches in `text`, in order, none overlapping. */
  find (text: string): LexiconMatch[] {
    const matches: LexiconMatch[] = []
    let after = 0
    for (const run of text.matchAll(WORD_RUN)) {
      if (run.index < after) continue
      const found = this.matchAt(text, run.index, run[0].toLowerCase(), after)
      if (found === undefined) continue
      matches.push(found)
      after = found.end
    }
    return matches
  }

  private matchAt (text: string, at: number, key: string, after: number): LexiconMatch | undefined {
    for (const c of this.index.get(key) ?? []) {
      const start = at - c.lead
      if (start < after) continue
      c.pattern.lastIndex = start
      const match = c.pattern.exec(text)
      if (match === null) continue
      const end = start + match[0].length
      if (c.wordEnd && WORD_CHARACTER.test(text[end] ?? '')) continue
      return { start, end, entry: c.entry, lexicon: c.lexicon }
    }
    return undefined
  }
}
