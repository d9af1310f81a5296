// Inline phonemes, as piper1-gpl reads them: `[[ bˈætmæn ]]` in any text is
// spoken as those IPA phonemes (the block's content without its surrounding
// spaces, each code point a phoneme, spaces between words), and joins the
// sentence around it. A block ends at the first `]]` and never spans a line
// break, as piper1-gpl's pattern has it; an unclosed `[[` is text.
//
// Escape: a backslash right before `[[` (`\[[`) makes it a literal `[[`: the
// backslash is not spoken, the brackets are text (piper1-gpl has no escape;
// a backslash there is read as text, so no text it speaks changes meaning).

import type { Edit } from './normalize/offsets.js'
import type { ScriptPart, TextPart } from './script.js'
import { editSpoken, sliceSpoken } from './spoken.js'

const BLOCK_OR_ESCAPE = /\\\[\[|\[\[(.*?)\]\]/g

/** Whether `text` holds a block or an escape: only then is it split. */
export function hasInlinePhonemes (text: string): boolean {
  return text.includes('[[')
}

/** `part` cut at its `[[ … ]]` blocks: text parts between them (escapes
 * resolved) and a phoneme part for each block with phonemes in it. */
export function splitInlinePhonemes (part: TextPart): ScriptPart[] {
  const { spoken, style } = part
  const text = spoken.text
  const out: ScriptPart[] = []
  let from = 0
  let escapes: Edit[] = []
  const flushText = (to: number): void => {
    if (to > from || escapes.length > 0) {
      const slice = sliceSpoken(spoken, from, to)
      out.push({ kind: 'text', spoken: editSpoken(slice, escapes.map(e => ({ ...e, start: e.start - from, end: e.end - from }))), overrides: [], style })
    }
    escapes = []
  }
  for (const match of text.matchAll(BLOCK_OR_ESCAPE)) {
    const at = match.index
    if (match[0].startsWith('\\')) {
      escapes.push({ start: at, end: at + 1, text: '' })
      continue
    }
    flushText(at)
    from = at + match[0].length
    const inner = match[1]
    const ipa = inner.trim()
    if (ipa.length === 0) continue
    const contentStart = at + 2 + (inner.length - inner.trimStart().length)
    const [start, end] = spoken.toOriginal(contentStart, contentStart + ipa.length)
    out.push({ kind: 'phonemes', ipa, start, end, origin: `[[ ]] at text offset ${spoken.toOriginal(at, at)[0]}`, style })
  }
  flushText(text.length)
  return out
}
