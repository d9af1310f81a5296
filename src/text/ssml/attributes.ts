// The values SSML attributes take in the subset: a break's length, a
// prosody rate. Each reader returns the value or refuses with the element,
// the attribute, what it accepts and where.

import type { XmlElement } from '../xml.js'
import { refuseSsml } from './refuse.js'

/** A break's strength, as pause seconds (SSML leaves them to the processor). */
export const BREAK_STRENGTHS: Readonly<Record<string, number>> = Object.freeze({
  none: 0, 'x-weak': 0.1, weak: 0.25, medium: 0.5, strong: 0.75, 'x-strong': 1
})

/** The longest one `<break>` may be. */
export const MAX_BREAK_SECONDS = 10

/** A prosody rate keyword, as a speed factor (1 the request's own speed). */
export const RATE_KEYWORDS: Readonly<Record<string, number>> = Object.freeze({
  'x-slow': 0.5, slow: 0.75, medium: 1, default: 1, fast: 1.25, 'x-fast': 1.5
})

/** One `<prosody rate>` may change the speed this much at most, either way. */
export const RATE_RANGE = { min: 0.2, max: 5 }

const TIME = /^(\d+(?:\.\d+)?|\.\d+)(ms|s)$/

/** Seconds of a `<break>`: `time` ("500ms", "1.5s") wins over `strength`; neither: medium. */
export function breakSeconds (element: XmlElement): number {
  const { time, strength } = element.attributes
  if (time !== undefined) {
    const match = TIME.exec(time.trim())
    const seconds = match === null ? NaN : Number(match[1]) / (match[2] === 'ms' ? 1000 : 1)
    if (!(seconds >= 0 && seconds <= MAX_BREAK_SECONDS)) {
      refuseSsml(`a time from 0s to ${MAX_BREAK_SECONDS}s ("500ms", "1.5s")`, '<break time>', JSON.stringify(time), element.place)
    }
    return seconds
  }
  if (strength === undefined) return BREAK_STRENGTHS.medium
  const seconds = BREAK_STRENGTHS[strength]
  if (seconds === undefined) refuseSsml(`one of ${Object.keys(BREAK_STRENGTHS).join(', ')}`, '<break strength>', JSON.stringify(strength), element.place)
  return seconds
}

/** The speed factor of `<prosody rate>`: a keyword, a percentage ("80%") or a factor ("1.2"); 1 when absent. */
export function prosodyRate (element: XmlElement): number {
  const rate = element.attributes.rate
  if (rate === undefined) return 1
  const value = rate.trim()
  const keyword = RATE_KEYWORDS[value]
  if (keyword !== undefined) return keyword
  const match = /^(\d+(?:\.\d+)?|\.\d+)(%?)$/.exec(value)
  const factor = match === null ? NaN : Number(match[1]) / (match[2] === '%' ? 100 : 1)
  if (!(factor >= RATE_RANGE.min && factor <= RATE_RANGE.max)) {
    refuseSsml(`one of ${Object.keys(RATE_KEYWORDS).join(', ')}, a percentage from ${RATE_RANGE.min * 100}% to ${RATE_RANGE.max * 100}% or a factor`, '<prosody rate>', JSON.stringify(rate), element.place)
  }
  return factor
}

/** Only `allowed` attributes (and xmlns declarations) on `element`. */
export function onlyAttributes (element: XmlElement, allowed: readonly string[]): void {
  for (const name of Object.keys(element.attributes)) {
    if (allowed.includes(name) || name === 'xmlns' || name.startsWith('xmlns:')) continue
    const what = allowed.length === 0 ? 'no attributes' : `only ${allowed.join(', ')}`
    refuseSsml(what, `<${element.name}>`, `the attribute ${name}`, element.place)
  }
}
