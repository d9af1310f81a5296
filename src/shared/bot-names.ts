// A bot is named by two parts, "first" and "last"; its full name is
// "First Last". The same rules apply on both sides of the spawner API, so the
// tools and the reference spawner share them.

export interface BotName {
  first: string
  last: string
}

/** Longest name part accepted; OpenSim limits each part of an avatar name to 64 characters. */
const MAX_NAME_LENGTH = 64

// Control characters (C0, DEL, C1) would corrupt logs and headers.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u
const WHITESPACE = /\s/u

/**
 * What `value` would have to be to serve as one part of a bot name, or
 * undefined when it is fine; phrased to complete "Expected <what> for …".
 * Names travel as URL path segments: "/" and "\" would change the path and
 * "." or ".." would be folded away by URL normalisation, so all are refused
 * here rather than trusted to encoding. Whitespace is refused because the
 * full name "First Last" is split on its single space.
 */
export function hasControlCharacters (value: string): boolean {
  return CONTROL.test(value)
}

export function unmetNameRule (value: string): string | undefined {
  if (value.trim() === '') return 'a non-blank name'
  if (hasControlCharacters(value)) return 'a name without control characters'
  if (WHITESPACE.test(value)) return 'a name without whitespace'
  if (value.includes('/') || value.includes('\\')) return 'a name without "/" or "\\"'
  if (value === '.' || value === '..') return 'a name other than "." or ".."'
  if ([...value].length > MAX_NAME_LENGTH) return `a name of at most ${MAX_NAME_LENGTH} characters`
  return undefined
}

export function fullName (name: BotName): string {
  return `${name.first} ${name.last}`
}

/** Parses "First Last" (exactly two valid parts, one space) or returns undefined. */
export function parseFullName (value: string): BotName | undefined {
  const parts = value.split(' ')
  if (parts.length !== 2) return undefined
  const [first, last] = parts as [string, string]
  if (unmetNameRule(first) !== undefined || unmetNameRule(last) !== undefined) return undefined
  return { first, last }
}

/** Bot identity is case-insensitive, as OpenSim avatar names are. */
export function nameKey (name: BotName): string {
  return fullName(name).toLowerCase()
}

export function sameBot (a: BotName, b: BotName): boolean {
  return nameKey(a) === nameKey(b)
}
