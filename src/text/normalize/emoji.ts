// Emoji. espeak-ng names them, from its emoji list: "👋" is "waving hand",
// "😀" "grinning face", but "❤️" is just "red" and "👍🏽" "thumbs medium".
// In a reply they decorate; a name read out mid-sentence is noise, and an
// avatar shows the feeling better than the words do. So by default they are
// dropped, with the space before them (or after, at the start of a line);
// `emoji: 'name'` leaves them to espeak.

import { matchEdits, type Rule } from './rule.js'

// RGI emoji cover ZWJ sequences, skin tones, flags and keycaps; a lone
// modifier or variation selector left by a broken sequence goes too.
const ONE = String.raw`(?:\p{RGI_Emoji}|\p{Emoji_Modifier}|\uFE0F|\u200D)`
const EMOJI = new RegExp(`${ONE}(?:[ \t]*${ONE})*`, 'gv')

function isBlank (char: string | undefined): boolean {
  return char === ' ' || char === '\t'
}

function atLineStart (text: string, position: number): boolean {
  let i = position - 1
  while (isBlank(text[i])) i--
  return i < 0 || text[i] === '\n'
}

export const dropEmoji: Rule = text => matchEdits(text, EMOJI, m => {
  let start = m.index
  let end = start + m[0].length
  // The space before goes with it; at the start of a line there is none: the one after.
  if (atLineStart(text, start)) while (isBlank(text[end])) end++
  else while (isBlank(text[start - 1])) start--
  return { start, end, text: '' }
})
