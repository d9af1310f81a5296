// Pieces of a spoken text that keep their map back to the text as sent:
// a slice, an edit. SpokenText (normalize/) is the one shape of "text to
// speak, and where each range of it came from".

import type { SpokenText } from './normalize/index.js'
import { applyEdits, type Edit } from './normalize/offsets.js'

/** `spoken.text[start, end)`, mapping into what `spoken` maps into. */
export function sliceSpoken (spoken: SpokenText, start: number, end: number): SpokenText {
  const text = spoken.text.slice(start, end)
  return {
    text,
    toOriginal (from, to) {
      const a = Math.min(text.length, Math.max(0, Math.trunc(from)))
      const b = Math.max(a, Math.min(text.length, Math.trunc(to)))
      return spoken.toOriginal(a + start, b + start)
    }
  }
}

/** `spoken` with `edits` (sorted, not overlapping) applied: text an edit
 * wrote maps to all of what it replaced, as the normalizer's rules do. */
export function editSpoken (spoken: SpokenText, edits: readonly Edit[]): SpokenText {
  if (edits.length === 0) return spoken
  const { text, map } = applyEdits(spoken.text, edits)
  return {
    text,
    toOriginal (from, to) {
      const [a, b] = map.toSource(from, to)
      return spoken.toOriginal(a, b)
    }
  }
}

/** A text's whole-string spoken form: each range maps to itself plus `offset`. */
export function offsetSpoken (text: string, offset: number): SpokenText {
  return {
    text,
    toOriginal (from, to) {
      const a = Math.min(text.length, Math.max(0, Math.trunc(from)))
      const b = Math.max(a, Math.min(text.length, Math.trunc(to)))
      return [a + offset, b + offset]
    }
  }
}

/** Texts one after the other as one text, each part still mapping to its own
 * source; a range over several maps from the first one's start to the last one's end. */
export function joinSpoken (texts: readonly SpokenText[]): SpokenText {
  if (texts.length === 1) return texts[0]
  const starts: number[] = []
  let length = 0
  for (const t of texts) {
    starts.push(length)
    length += t.text.length
  }
  const text = texts.map(t => t.text).join('')
  // The part a position is in; a position between two parts belongs to the
  // later as a start and to the earlier as an end.
  const locate = (position: number, asEnd: boolean): [SpokenText, number] => {
    const p = Math.max(0, Math.min(Math.trunc(position), length))
    let i = starts.length - 1
    while (i > 0 && (asEnd ? starts[i] >= p : starts[i] > p)) i--
    return [texts[i], p - starts[i]]
  }
  return {
    text,
    toOriginal (from, to) {
      const [first, a] = locate(from, false)
      const [last, b] = locate(Math.max(from, to), true)
      if (first === last) return first.toOriginal(a, b)
      return [first.toOriginal(a, first.text.length)[0], last.toOriginal(0, b)[1]]
    }
  }
}
