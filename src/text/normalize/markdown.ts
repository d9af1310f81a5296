// Markdown as language models write it. espeak-ng reads "**" as "asterisk
// asterisk", "#" as "hash" and a link's URL letter by letter; it already
// ignores backticks, "_", ">" and table bars, so those are left to it.
// Code blocks: the fences (and their language tag, which espeak spells out)
// go, the code itself is read as written, so a short command is still heard
// and the caption, which shows the original text, lines up with it.

import type { Edit } from './offsets.js'
import { matchEdits, type Rule } from './rule.js'

// Spans are bounded (SPAN characters of marked text, LINE of a line): an
// opening marker that is never closed costs at most that much look-ahead,
// so a pass stays linear in the text whatever it holds.
const FENCE = /^[ \t]*(?:```|~~~)[^\n]*$/gm
const HEADING = /^([ \t]{0,3}#{1,6}[ \t]+)([^\n]{0,500}?)([ \t]+#+)?[ \t]*$/gm
const BULLET = /^([ \t]*[-*+•][ \t]+)(?=\S)([^\n]{0,2000}?)[ \t]*$/gm
const LINK = /(!?\[)([^\]\n]{1,500})(\]\([^)\s]{0,2000}(?:[ \t]+"[^"\n]{0,500}")?\))/g
const STRONG = /(\*\*|__)(?=\S)([^\n]{0,500}?\S)\1/g
const EMPHASIS = /(?<![\w*\\])\*(?=[^\s*])([^*\n]{0,500}?[^\s*\\])\*(?![\w*])/g
const STRIKE = /~~(?=\S)([^\n]{0,500}?\S)~~/g

/** A heading or list item that ends without punctuation gets a full stop,
 * so it is not run into the next line (espeak reads a newline as a space). */
function endStop (contentEnd: number, content: string): Edit[] {
  return /[.!?:;,]$/.test(content) ? [] : [{ start: contentEnd, end: contentEnd, text: '.' }]
}

const fences: Rule = text => matchEdits(text, FENCE, m => ({ start: m.index, end: m.index + m[0].length, text: '' }))

const headings: Rule = text => matchEdits(text, HEADING, m => {
  const contentStart = m.index + m[1].length
  const contentEnd = contentStart + m[2].length
  const edits: Edit[] = [{ start: m.index, end: contentStart, text: '' }]
  if (m[3] !== undefined) edits.push({ start: contentEnd, end: contentEnd + m[3].length, text: '' })
  return m[2] === '' ? edits : [edits[0], ...endStop(contentEnd, m[2]), ...edits.slice(1)]
})

const bullets: Rule = text => matchEdits(text, BULLET, m => {
  const contentStart = m.index + m[1].length
  return [{ start: m.index, end: contentStart, text: '' }, ...endStop(contentStart + m[2].length, m[2])]
})

/** A link or image reads as its text; the brackets and the target go. */
const links: Rule = text => matchEdits(text, LINK, m => {
  const textStart = m.index + m[1].length
  const textEnd = textStart + m[2].length
  return [{ start: m.index, end: textStart, text: '' }, { start: textEnd, end: textEnd + m[3].length, text: '' }]
})

/** Paired markers around text: only the markers go. */
function markers (pattern: RegExp, width: (m: RegExpExecArray) => number): Rule {
  return text => matchEdits(text, pattern, m => {
    const w = width(m)
    const end = m.index + m[0].length
    return [{ start: m.index, end: m.index + w, text: '' }, { start: end - w, end, text: '' }]
  })
}

/** In order: block structure first, then links, then inline markers. */
export const MARKDOWN_RULES: readonly Rule[] = [
  fences,
  headings,
  bullets,
  links,
  markers(STRONG, m => m[1].length),
  markers(EMPHASIS, () => 1),
  markers(STRIKE, () => 2)
]
