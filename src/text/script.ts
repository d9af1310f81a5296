// A request's text as the operator and the client asked it to be spoken: an
// ordered list of parts that the synthesis reads one by one. Plain text is
// one text part; inline phonemes (`[[ … ]]`), SSML and lexicons make more.
// Every part keeps where it came from in the text as sent, so word timing
// still indexes that text. Pure data: src/synthesis speaks it.

import type { SpokenText } from './normalize/index.js'

/** How a part is spoken: by which voice (SSML `<voice>`), in which espeak-ng
 * language (`<lang>`), and how fast (`<prosody rate>`: 1 is the request's own
 * speed, 2 twice as fast). Unset voice and language: the request's. */
export interface ScriptStyle {
  readonly voice?: string
  readonly language?: string
  readonly rate: number
}

export const PLAIN_STYLE: ScriptStyle = Object.freeze({ rate: 1 })

/** Phonemes given for a range of a text part (an SSML `<phoneme>`, a lexicon's
 * `<phoneme>`): the words read there get these phonemes instead of espeak-ng's,
 * every other word keeps its own reading. */
export interface PhonemeOverride {
  /** Range of the part's spoken text, [start, end). */
  start: number
  end: number
  ipa: string
  /** Where the phonemes were written, for errors: `<phoneme> at line 2, column 5`. */
  origin: string
}

export interface TextPart {
  kind: 'text'
  /** The text to phonemize and its map back to the text as sent. */
  spoken: SpokenText
  overrides: PhonemeOverride[]
  style: ScriptStyle
}

/** Phonemes spoken as given (`[[ … ]]`, an empty SSML `<phoneme>`): they join
 * the sentence they are in, as piper1-gpl joins them. */
export interface PhonemePart {
  kind: 'phonemes'
  ipa: string
  /** Where the phonemes, or what they stand for, are in the text as sent. */
  start: number
  end: number
  origin: string
  style: ScriptStyle
}

/** Silence (`<break>`): ends the sentence before it. */
export interface BreakPart {
  kind: 'break'
  seconds: number
}

/** A sentence ends here (`</s>`, `</p>`, `<s>`, `<p>`): what follows starts a new one. */
export interface BoundaryPart {
  kind: 'boundary'
}

export type ScriptPart = TextPart | PhonemePart | BreakPart | BoundaryPart

/** A text part of `spoken` with nothing overridden. */
export function textPart (spoken: SpokenText, style: ScriptStyle = PLAIN_STYLE): TextPart {
  return { kind: 'text', spoken, overrides: [], style }
}

/** A script that is one text part, plain style, nothing overridden: it is
 * spoken exactly as plain text is (Piper-exact audio). */
export function plainText (parts: readonly ScriptPart[]): TextPart | undefined {
  const texts = parts.filter(p => p.kind !== 'boundary')
  if (texts.length !== 1) return undefined
  const only = texts[0]
  if (only.kind !== 'text' || only.overrides.length > 0) return undefined
  return only.style.voice === undefined && only.style.language === undefined && only.style.rate === 1 ? only : undefined
}

/** A stable description of a script for the phrase cache's key: what shapes its audio, nothing else. */
export function scriptKey (parts: readonly ScriptPart[]): string {
  return JSON.stringify(parts.map(part => {
    switch (part.kind) {
      case 'text': return ['t', part.spoken.text, part.overrides.map(o => [o.start, o.end, o.ipa]), styleKey(part.style)]
      case 'phonemes': return ['p', part.ipa, styleKey(part.style)]
      case 'break': return ['b', part.seconds]
      case 'boundary': return ['s']
    }
  }))
}

function styleKey (style: ScriptStyle): unknown[] {
  return [style.voice ?? '', style.language ?? '', style.rate]
}
