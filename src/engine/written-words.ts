// The words as written, from the words espeak-ng read: each written word's
// range of the text (UTF-16 code units, JavaScript string indices) and the
// range of its sentence's phonemes that speak it. Pure.
//
// espeak-ng reports where each word it speaks starts, in code points, with a
// length that is not always the written word's ("don" for "don't", "well"
// for "well-known", "Dr" for "Dr.", at most 31). The rules (docs/timing.md):
//   - a token espeak-ng expands into several words ("1863", "$5", "10:30",
//     "3.14", an emoji's name) is one word: its parts either start one code
//     point after the token (espeak-ng's mark for the words of an expansion)
//     or inside the same run of non-space characters;
//   - words espeak-ng merges ("of the" spoken as one word) are one word
//     whose range covers both;
//   - words espeak-ng speaks out of written order ("$5 million": "five
//     million dollars") become one word, so that words stay in order;
//   - a range ends at the end of the last token holding a letter, digit or a
//     character espeak-ng spoke, before the next word; trailing punctuation
//     and spaces are not part of it, except the full stop of an abbreviation
//     of short letter runs with inner stops ("U.S.A.", "e.g.", "Ph.D.").

export interface EspeakWord {
  sentence: number
  /** The word's phonemes in its sentence's phoneme codepoints, [start, end). */
  phonemeStart: number
  phonemeEnd: number
  /** Where espeak-ng read it: code points from the text's start, and its length. */
  sourceStart: number
  sourceLength: number
}

export interface WrittenWord {
  sentence: number
  phonemeStart: number
  phonemeEnd: number
  /** The word in the text, UTF-16 code units, [start, end). */
  textStart: number
  textEnd: number
}

interface Group extends WrittenWord {
  /** The end of what espeak-ng's own spans cover, which trimming keeps. */
  spokenEnd: number
}

/** UTF-16 index of each code point of `text`, and its length last. */
export function codePointOffsets (text: string): Uint32Array {
  const offsets: number[] = []
  let at = 0
  for (const char of text) {
    offsets.push(at)
    at += char.length
  }
  offsets.push(at)
  return Uint32Array.from(offsets)
}

const SPACE = /\s/u
/** Scripts written without spaces: each of their characters espeak-ng reads
 * as a word of its own starts a word. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u
const CONTENT = /[\p{L}\p{N}\p{S}]/u
const TRAILING = /[\s\p{P}\p{Cf}]/u
/** Letters in short runs joined by stops: "U.S.A", "e.g", "Ph.D". */
const ABBREVIATION = /^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u

function hasSpace (text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (SPACE.test(text[i])) return true
  return false
}

/** The end of the last whitespace-separated token in [from, limit) that
 * holds a letter or digit, or `from` when none does. */
function lastContentEnd (text: string, from: number, limit: number): number {
  let end = from
  let tokenStart = -1
  let content = false
  for (let i = from; i <= limit; i++) {
    if (i === limit || SPACE.test(text[i])) {
      if (tokenStart >= 0 && content) end = i
      tokenStart = -1
      content = false
    } else {
      if (tokenStart < 0) tokenStart = i
      // By code point: an emoji's halves alone are no symbol.
      if (CONTENT.test(String.fromCodePoint(text.codePointAt(i) as number))) content = true
    }
  }
  return end
}

function textEnd (text: string, group: Group, limit: number): number {
  let end = Math.max(lastContentEnd(text, group.textStart, limit), group.spokenEnd)
  while (end > group.spokenEnd && end > group.textStart && TRAILING.test(text[end - 1])) end--
  // espeak-ng's own span may end on a space (an emoji's position is off): never a word's edge.
  while (end > group.textStart + 1 && SPACE.test(text[end - 1])) end--
  // "U.S.A." and "e.g." keep their last stop; "Dr.", "end." and "example.com." do not.
  if (text[end] === '.' && ABBREVIATION.test(text.slice(group.textStart, end))) end++
  return end
}

/** A stray position (espeak-ng places a spoken punctuation mark one
 * after it, on the space that follows) with no word before it to join: the
 * written character before it, else the one after. */
function nearestWritten (text: string, at: number): number {
  for (let i = Math.min(at, text.length) - 1; i >= 0; i--) if (!SPACE.test(text[i])) return i
  let i = at
  while (i < text.length - 1 && SPACE.test(text[i])) i++
  return i
}

/** Consecutive words of one sentence grouped into written words, in order. */
function group (text: string, words: readonly EspeakWord[]): Group[] {
  const at = codePointOffsets(text)
  const units = (codePoint: number): number => at[Math.min(Math.max(codePoint, 0), at.length - 1)]
  const groups: Group[] = []
  let head: EspeakWord | undefined
  for (const word of words) {
    const start = units(word.sourceStart)
    // A spoken punctuation mark may come with no length ("!" read as "exclamation"): it covers itself.
    const spokenEnd = units(word.sourceStart + Math.max(1, word.sourceLength))
    const last = groups.at(-1)
    const same = last !== undefined && last.sentence === word.sentence
    // espeak-ng starts the words of an expansion one code point after the token.
    const part = same && head !== undefined && word.sourceStart === head.sourceStart + 1 && word.sourceLength === head.sourceLength &&
      !UNSPACED.test(text[start] ?? '')
    const stray = start >= text.length || SPACE.test(text[start])
    if (!part) head = word
    const joined = !hasSpace(text, last?.textStart ?? 0, start) && !UNSPACED.test(text[start] ?? '')
    if (same && (part || stray || start < last.textStart || joined)) {
      last.phonemeEnd = word.phonemeEnd
      if (!part && !stray) {
        last.textStart = Math.min(last.textStart, start)
        last.spokenEnd = Math.max(last.spokenEnd, spokenEnd)
      }
      continue
    }
    const first = stray ? nearestWritten(text, start) : start
    groups.push({ sentence: word.sentence, phonemeStart: word.phonemeStart, phonemeEnd: word.phonemeEnd, textStart: first, textEnd: first, spokenEnd: stray ? first + 1 : spokenEnd })
  }
  return groups
}

/** The written words of `words` (espeak-ng's, of every sentence of `text`, in order). */
export function writtenWords (text: string, words: readonly EspeakWord[]): WrittenWord[] {
  const groups = group(text, words)
  groups.forEach((g, i) => {
    const next = groups[i + 1]?.textStart ?? text.length
    g.textEnd = textEnd(text, g, Math.max(next, g.spokenEnd, g.textStart))
  })
  // Words read out of written order overlap the word before: one word.
  const merged: WrittenWord[] = []
  for (const g of groups) {
    const last = merged.at(-1)
    if (last !== undefined && last.sentence === g.sentence && g.textStart < last.textEnd) {
      last.textStart = Math.min(last.textStart, g.textStart)
      last.textEnd = Math.max(last.textEnd, g.textEnd)
      last.phonemeEnd = g.phonemeEnd
      continue
    }
    merged.push({ sentence: g.sentence, phonemeStart: g.phonemeStart, phonemeEnd: g.phonemeEnd, textStart: g.textStart, textEnd: g.textEnd })
  }
  return merged
}
