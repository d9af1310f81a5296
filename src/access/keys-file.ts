// The API keys file (TTS_API_KEYS_FILE): which keys the service accepts, the
// name each speaks for, its role, its weight in the fair share of inference
// slots and its quotas. Checked whole, at start-up and at every reload:
//   { "keys": { "<key>": { "name": "bot-a", "role": "user", "weight": 2,
//       "quotas": { "requests_per_minute": 120, "audio_seconds_per_minute": 600, "concurrent_streams": 4 } } } }
// A message about an entry names it by its position and name, never by its
// key, and quotes no value that could be one (a string as long as a key, or
// anything holding strings); a file that is not JSON is reported by line
// and column, never by its text: configuration errors end up in logs.

import { readFileSync, statSync } from 'node:fs'
import { ConfigError } from '../errors.js'
import { jsonSyntaxFault } from '../shared/json-syntax.js'
import { describeValue, isFiniteNumber, isInteger, isPlainObject } from '../validate.js'

export type Role = 'user' | 'admin'

export interface KeyQuotas {
  /** Requests of any kind in the last 60 s. */
  requestsPerMinute?: number
  /** Seconds of audio synthesised in the last 60 s. */
  audioSecondsPerMinute?: number
  /** Speech responses open at once. */
  concurrentStreams?: number
}

export interface ApiKey {
  key: string
  name: string
  role: Role
  weight: number
  quotas: KeyQuotas
}

/** Whatever the file says, the label set of the per-key metrics and the scan
 * of a presented key stay this small. */
export const MAX_KEYS = 1000
/** A keys file is a few kilobytes; a bigger one is a mistake, not read. */
const MAX_KEYS_FILE_BYTES = 1024 * 1024
/** Long enough that guessing is hopeless, in the alphabets of hex, base64 and
 * base64url, so a key fits a header and a query parameter unchanged. */
const KEY = /^[A-Za-z0-9._~+/=-]{16,256}$/
const SHORTEST_KEY = 16
/** A name is a metrics label and a log field. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** The name of requests made without keys configured (see tenant.ts). */
const RESERVED_NAMES = new Set(['anonymous'])

const QUOTA_FIELDS: ReadonlyArray<[field: string, property: keyof KeyQuotas, integer: boolean, max: number]> = [
  ['requests_per_minute', 'requestsPerMinute', true, 1_000_000],
  ['audio_seconds_per_minute', 'audioSecondsPerMinute', false, 1_000_000],
  ['concurrent_streams', 'concurrentStreams', true, 100_000]
]

const KEYS_FILE_VARIABLE = 'TTS_API_KEYS_FILE'

/** Checks a keys file's text; a ConfigError names the file and the entry. */
export function parseKeysFile (text: string, file: string): ApiKey[] {
  const where = `${KEYS_FILE_VARIABLE} (${file})`
  const fail = (what: string, name: string, value: unknown): never => {
    throw new ConfigError(`Expected ${what} for ${name} in ${where} but received ${describeSafely(value)}`)
  }
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    throw new ConfigError(`Expected JSON in ${where} but it does not parse${faultPlace(text)} (the text is not shown: it holds keys)`)
  }
  if (!isPlainObject(document)) fail('an object {"keys": {…}}', 'the file', document)
  const root = document as Record<string, unknown>
  for (const field of Object.keys(root)) if (field !== 'keys') fail('only the field "keys"', 'the file', field)
  if (!isPlainObject(root.keys)) fail('an object of key → {"name", "role", …}', '"keys"', root.keys)
  const entries = Object.entries(root.keys as Record<string, unknown>)
  if (entries.length > MAX_KEYS) fail(`at most ${MAX_KEYS} keys`, '"keys"', `${entries.length} keys`)
  const names = new Set<string>()
  return entries.map(([key, value], index) => {
    const entry = (field?: string): string => {
      const name = isPlainObject(value) && typeof value.name === 'string' && NAME.test(value.name) ? ` (${value.name})` : ''
      return `entry ${index + 1}${name}${field === undefined ? '' : `.${field}`}`
    }
    if (!KEY.test(key)) {
      // Never echo a key, not even a malformed one.
      throw new ConfigError(`Expected a key of 16 to 256 characters from A-Z a-z 0-9 . _ ~ + / = - for ${entry()} in ${where} but received one of ${key.length} characters that is not`)
    }
    if (!isPlainObject(value)) fail('an object {"name", "role", …}', entry(), value)
    const fields = value as Record<string, unknown>
    for (const field of Object.keys(fields)) {
      if (!['name', 'role', 'weight', 'quotas'].includes(field)) fail('only the fields name, role, weight and quotas', entry(), field)
    }
    const name = fields.name
    if (typeof name !== 'string' || !NAME.test(name)) fail('a name of letters, digits, ".", "_" or "-" (up to 64, like bot-a)', entry('name'), name)
    if (RESERVED_NAMES.has(name as string)) fail('a name other than "anonymous" (it counts requests without a key)', entry('name'), name)
    if (names.has(name as string)) fail('a name no other key has', entry('name'), name)
    names.add(name as string)
    const role = fields.role ?? 'user'
    if (role !== 'user' && role !== 'admin') fail('"user" or "admin"', entry('role'), role)
    const weight = fields.weight ?? 1
    if (!isFiniteNumber(weight) || weight <= 0 || weight > 1000) fail('a number above 0 and at most 1000', entry('weight'), weight)
    return { key, name: name as string, role: role as Role, weight: weight as number, quotas: parseQuotas(fields.quotas, entry('quotas'), fail) }
  })
}

/** A value as a message may show it: a string shorter than any key, or a
 * number, boolean or null; anything else only by its kind and size. */
function describeSafely (value: unknown): string {
  if (typeof value === 'string') return value.length < SHORTEST_KEY ? describeValue(value) : `a value not shown (a string of ${value.length} characters)`
  if (Array.isArray(value)) return `a value not shown (an array of ${value.length} items)`
  if (value !== null && typeof value === 'object') return 'a value not shown (an object)'
  return describeValue(value)
}

/** Where JSON's grammar stops, in words: " at line 3, column 7 (expected ':')". */
function faultPlace (text: string): string {
  const fault = jsonSyntaxFault(text)
  return fault === undefined ? '' : ` at line ${fault.line}, column ${fault.column} (expected ${fault.expected})`
}

function parseQuotas (value: unknown, name: string, fail: (what: string, name: string, value: unknown) => never): KeyQuotas {
  if (value === undefined) return {}
  if (!isPlainObject(value)) fail('an object of quotas', name, value)
  const fields = value as Record<string, unknown>
  const quotas: KeyQuotas = {}
  for (const field of Object.keys(fields)) {
    if (!QUOTA_FIELDS.some(([known]) => known === field)) fail(`only the fields ${QUOTA_FIELDS.map(([known]) => known).join(', ')}`, name, field)
  }
  for (const [field, property, integer, max] of QUOTA_FIELDS) {
    const quota = fields[field]
    if (quota === undefined) continue
    const fits = integer ? isInteger(quota) && quota >= 1 && quota <= max : isFiniteNumber(quota) && quota > 0 && quota <= max
    if (!fits) fail(integer ? `an integer from 1 to ${max}` : `a number above 0 and at most ${max}`, `${name}.${field}`, quota)
    quotas[property] = quota as number
  }
  return quotas
}

/** Reads and checks the file at start-up; unreadable or bad, a ConfigError (exit 2). */
export function loadKeysFile (file: string): ApiKey[] {
  return parseKeysFile(readKeysText(file), file)
}

/** The file's text, refused unread beyond MAX_KEYS_FILE_BYTES. */
export function readKeysText (file: string): string {
  let text: Buffer
  try {
    if (statSync(file).size > MAX_KEYS_FILE_BYTES) throw new ConfigError(`Expected at most ${MAX_KEYS_FILE_BYTES} bytes in ${KEYS_FILE_VARIABLE} (${file}) but the file is larger`)
    text = readFileSync(file)
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError(`Expected a readable file for ${KEYS_FILE_VARIABLE} but received ${JSON.stringify(file)} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`)
  }
  return text.toString('utf8')
}
