// Shared predicates for every outside input (HTTP bodies, env, flags,
// JSON-RPC params). One message format everywhere, which tests assert on:
//   Expected <what> for <name> but received <value> (<type>)

import { InvalidArgumentError } from './errors.js'

// Characters that show nothing and speak nothing: white space, controls and
// Unicode's default-ignorable code points (zero-width spaces and joiners,
// the BOM, soft hyphens, variation selectors, …).
const INVISIBLE = /[\s\p{Cc}\p{Default_Ignorable_Code_Point}]/u
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu')

/** Text with at least one character that can be seen (and so spoken). */
export function hasVisibleText (value: string): boolean {
  for (const character of value) if (!INVISIBLE.test(character)) return true
  return false
}

/** JSON.stringify escapes controls but not zero-width characters: shown as \uXXXX so a message says what arrived. */
function showInvisible (json: string): string {
  return json.replace(INVISIBLE_ALL, c => c === ' ' ? c : `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`)
}

export function describeValue (value: unknown): string {
  let shown: string
  if (typeof value === 'string') shown = showInvisible(JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value))
  else if (typeof value === 'bigint') shown = `${value}n`
  else if (typeof value === 'number') shown = String(value)
  else if (value === undefined || typeof value === 'function' || typeof value === 'symbol') shown = String(value)
  else {
    try {
      shown = JSON.stringify(value) ?? String(value)
    } catch {
      shown = String(value)
    }
    if (shown.length > 60) shown = shown.slice(0, 60) + '…'
  }
  return `${shown} (${typeName(value)})`
}

function typeName (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN'
  return typeof value
}

export function expectedMessage (what: string, name: string, value: unknown): string {
  return `Expected ${what} for ${name} but received ${describeValue(value)}`
}

export function invalid (what: string, name: string, value: unknown): InvalidArgumentError {
  return new InvalidArgumentError(expectedMessage(what, name, value), { field: name, expected: what })
}

export function isPlainObject (value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

export function isFiniteNumber (value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

export function isInteger (value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value)
}

export function isNonEmptyString (value: unknown): value is string {
  return typeof value === 'string' && value.length > 0
}

/** A finite number within [min, max] (inclusive), or the named field is rejected. */
export function numberInRange (value: unknown, name: string, min: number, max: number): number {
  if (!isFiniteNumber(value) || value < min || value > max) {
    throw invalid(`a number from ${min} to ${max}`, name, value)
  }
  return value
}

/** An integer within [min, max] (inclusive), or the named field is rejected. */
export function integerInRange (value: unknown, name: string, min: number, max: number): number {
  if (!isInteger(value) || value < min || value > max) {
    throw invalid(`an integer from ${min} to ${max}`, name, value)
  }
  return value
}
