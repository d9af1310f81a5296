// A passage for the built-in voice as the texts espeak-ng's synthesizer
// reads: one text per run of parts between sentence boundaries, with given
// phonemes written as espeak-ng's mnemonics inside `[[ ]]` (read with
// espeakPHONEMES), and any `[[` of the text itself kept apart so it stays
// text. Each text maps back to the text as sent, so word timing does too.

import type { Edit } from '../../text/normalize/offsets.js'
import type { SpokenText } from '../../text/normalize/index.js'
import type { PhonemePart, TextPart } from '../../text/script.js'
import { editSpoken, joinSpoken } from '../../text/spoken.js'
import type { EspeakMnemonics } from '../../voices/builtin-phonemes.js'
import type { PassagePart } from './passage-phonemes.js'
import { unknownPhoneme } from './plan.js'

function block (mnemonics: EspeakMnemonics, voice: string, ipa: string, origin: string): string {
  const written = mnemonics.write(ipa)
  if ('unknown' in written) throw unknownPhoneme(voice, origin, ipa, written.unknown.symbol)
  // Spaces keep the block a word of its own whatever is written beside it.
  return ` [[${written.mnemonics}]] `
}

function textFor (part: TextPart, mnemonics: EspeakMnemonics, voice: string): SpokenText {
  const overrides: Edit[] = part.overrides.map(o => ({ start: o.start, end: o.end, text: block(mnemonics, voice, o.ipa, o.origin) }))
  const inside = (at: number): boolean => overrides.some(o => at >= o.start && at < o.end)
  const literal: Edit[] = [...part.spoken.text.matchAll(/\[(?=\[)/g)]
    .filter(m => !inside(m.index))
    .map(m => ({ start: m.index + 1, end: m.index + 1, text: ' ' }))
  const edits = [...overrides, ...literal].sort((a, b) => a.start - b.start || a.end - b.end)
  return editSpoken(part.spoken, edits)
}

function phonemesFor (part: PhonemePart, mnemonics: EspeakMnemonics, voice: string): SpokenText {
  const text = block(mnemonics, voice, part.ipa, part.origin)
  return { text, toOriginal: () => [part.start, part.end] }
}

/** The passage's texts, one per sentence group. */
export function builtinTexts (parts: readonly PassagePart[], mnemonics: EspeakMnemonics, voice: string): SpokenText[] {
  const texts: SpokenText[] = []
  let group: SpokenText[] = []
  const close = (): void => {
    if (group.some(t => t.text.trim() !== '')) texts.push(joinSpoken(group))
    group = []
  }
  for (const part of parts) {
    if (part.kind === 'boundary') close()
    else group.push(part.kind === 'text' ? textFor(part, mnemonics, voice) : phonemesFor(part, mnemonics, voice))
  }
  close()
  return texts
}
