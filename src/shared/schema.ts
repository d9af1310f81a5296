// Request bodies described once, as a small subset of JSON Schema: the
// validator below reads these descriptions to check bodies (in the one
// message format of validate.ts), and the OpenAPI document publishes the same
// objects. A field's rules therefore cannot differ between the two.

import { invalid, isFiniteNumber, isInteger, isPlainObject } from '../validate.js'

export interface Schema {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array'
  enum?: readonly string[]
  minimum?: number
  maximum?: number
  /** In Unicode code points, as JSON Schema counts them. */
  minLength?: number
  maxLength?: number
  /** A regular expression (Unicode mode) the string must contain a match of. */
  pattern?: string
  properties?: Readonly<Record<string, Schema>>
  /** An array's items, and how many it may hold. */
  items?: Schema
  maxItems?: number
  required?: readonly string[]
  anyOf?: readonly Schema[]
  default?: unknown
  description?: string
}

export interface ObjectSchema extends Schema {
  type: 'object'
  properties: Readonly<Record<string, Schema>>
  required: readonly string[]
}

export function codePoints (text: string): number {
  let length = 0
  for (const _ of text) length++
  return length
}

/** What an acceptable value is, in words, for error messages. */
export function expected (schema: Schema): string {
  if (schema.anyOf !== undefined) return schema.anyOf.map(expected).join(' or ')
  if (schema.enum !== undefined) return `one of ${schema.enum.join(', ')}`
  switch (schema.type) {
    case 'number':
    case 'integer': {
      const noun = schema.type === 'number' ? 'a number' : 'an integer'
      if (schema.minimum !== undefined && schema.maximum !== undefined) return `${noun} from ${schema.minimum} to ${schema.maximum}`
      if (schema.minimum !== undefined) return `${noun} of at least ${schema.minimum}`
      return noun
    }
    case 'string': {
      let what = schema.maxLength !== undefined
        ? `a string of ${schema.minLength ?? 0} to ${schema.maxLength} characters`
        : schema.minLength === 1 ? 'a non-empty string' : 'a string'
      if (schema.pattern !== undefined) what += ` matching /${schema.pattern}/`
      return what
    }
    case 'boolean':
      return 'a boolean'
    case 'array':
      return `a list of at most ${schema.maxItems ?? 'any number of'} items, each ${schema.items === undefined ? 'a value' : expected(schema.items)}`
    case 'object': {
      const keys = schema.required ?? []
      return keys.length > 0 ? `an object with ${keys.map(k => `"${k}"`).join(', ')}` : 'an object'
    }
    default:
      return 'a value'
  }
}

/** Whether `value` satisfies `schema` (the subset above). */
function matches (schema: Schema, value: unknown): boolean {
  if (schema.anyOf !== undefined) return schema.anyOf.some(s => matches(s, value))
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return false
      const length = codePoints(value)
      if (schema.minLength !== undefined && length < schema.minLength) return false
      if (schema.maxLength !== undefined && length > schema.maxLength) return false
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false
      break
    }
    case 'number':
    case 'integer':
      if (!(schema.type === 'number' ? isFiniteNumber(value) : isInteger(value))) return false
      if (schema.minimum !== undefined && (value as number) < schema.minimum) return false
      if (schema.maximum !== undefined && (value as number) > schema.maximum) return false
      break
    case 'boolean':
      if (typeof value !== 'boolean') return false
      break
    case 'array':
      if (!Array.isArray(value) || (schema.maxItems !== undefined && value.length > schema.maxItems)) return false
      if (schema.items !== undefined && !value.every(item => matches(schema.items as Schema, item))) return false
      break
    case 'object':
      if (!isPlainObject(value)) return false
      for (const key of schema.required ?? []) if (value[key] === undefined) return false
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (value[key] !== undefined && !matches(sub, value[key])) return false
      }
      break
  }
  return schema.enum === undefined || schema.enum.includes(value as string)
}

/** Checks a body's fields against an object schema: missing required fields
 * and wrong values are rejected with the field's name; unknown fields are
 * ignored (clients send extras). */
export function checkFields (schema: ObjectSchema, body: Record<string, unknown>): void {
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = body[name]
    if (value === undefined && !schema.required.includes(name)) continue
    if (!matches(field, value)) throw invalid(expected(field), name, value)
  }
}
