// Emoji. espeak-ng names them, from its emoji list: "👋" is "waving hand",
// "😀" "grinning face", but "❤️" is just "red" and "👍🏽" "thumbs medium".
// In a reply they decorate; a name read out mid-sentence is noise, and an
// avatar shows the feeling better than the words do. So by default they are
// dropped, with the space before them (or after, at the start of a line);
// `emoji: 'name'` leaves them to espeak.

import { matchEdits, type Rule } from './rule.js'

// An emoji starts with a character shown as an emoji by default, or any
// pictograph asked to be one (U+FE0F), a flag's two regional indicators or
// a keycap; skin tones, ZWJ joins and tag sequences continue it. "©", "™"
// and "#" as text are not emoji and stay. (The RGI_Emoji set of the v flag
// says the same but costs some 50 µs a character.)
const START = String.raw`(?:\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3)`
const CONTINUE = String.raw`(?:\p{Emoji_Modifier}|\uFE0F|\u200D\p{Extended_Pictographic}\uFE0F?|[\u{E0020}-\u{E007F}])*`
const ONE = `${START}${CONTINUE}`
const EMOJI = new RegExp(`${ONE}(?:[ \t]*${ONE})*`, 'gu')

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
