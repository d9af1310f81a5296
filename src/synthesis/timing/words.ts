// Words from the phonemizer's ranges of the spoken text to ranges of the
// request's text, and from a sentence's phonemes to the entries of each of
// its pieces. Pure.
//
// The spoken text is the request's trimmed and (when asked) normalized;
// SpokenText.toOriginal maps back, and text a rule wrote maps to all of what
// it replaced, so the words made from one written token ("$5" spoken as "5
// dollars") map to the same range: they become one word. A word made only of
// text a rule inserted (no written source) joins the word before it.

import type { SentenceWord } from '../../engine/index.js'
import type { SpokenText } from '../../text/normalize/index.js'

/** A word of one piece: its range of the request's text, and its entries
 * [start, end) in the piece's timing (BOS is entry 0). */
export interface PieceWord {
  textStart: number
  textEnd: number
  entryStart: number
  entryEnd: number
}

/** A sentence's words with ranges of the request's text, in order, none overlapping. */
export function originalWords (words: readonly SentenceWord[], spoken: SpokenText): SentenceWord[] {
  const out: SentenceWord[] = []
  let unplaced: SentenceWord | undefined
  for (const word of words) {
    const [textStart, textEnd] = spoken.toOriginal(word.textStart, word.textEnd)
    const mapped = { ...word, textStart, textEnd }
    const last = out.at(-1)
    if (textEnd <= textStart) {
      if (last !== undefined) last.phonemeEnd = word.phonemeEnd
      else unplaced ??= mapped
      continue
    }
    if (unplaced !== undefined) {
      mapped.phonemeStart = unplaced.phonemeStart
      unplaced = undefined
    }
    if (last !== undefined && textStart < last.textEnd) {
      last.textStart = Math.min(last.textStart, textStart)
      last.textEnd = Math.max(last.textEnd, textEnd)
      last.phonemeEnd = word.phonemeEnd
      continue
    }
    out.push(mapped)
  }
  return out
}

/** The words of a piece that holds the sentence's phonemes [offset, offset
 * + length): a word cut by the piece's edge (a sentence longer than the
 * phoneme cap, cut inside an expanded token) is in both pieces with its
 * part of the phonemes. */
export function pieceWords (words: readonly SentenceWord[], offset: number, length: number): PieceWord[] {
  const end = offset + length
  const out: PieceWord[] = []
  for (const word of words) {
    const from = Math.max(word.phonemeStart, offset)
    const to = Math.min(word.phonemeEnd, end)
    if (to <= from && !(word.phonemeStart === word.phonemeEnd && word.phonemeStart >= offset && word.phonemeStart < end)) continue
    // Entry 0 is the piece's BOS.
    out.push({ textStart: word.textStart, textEnd: word.textEnd, entryStart: from - offset + 1, entryEnd: Math.max(from, to) - offset + 1 })
  }
  return out
}
