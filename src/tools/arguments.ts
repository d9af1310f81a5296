// Tool arguments are checked in two steps. First against the tool's JSON
// Schema (types, required, no extras): a failure there is a malformed call,
// answered with JSON-RPC -32602. Then against the bot rules (bot-tools.ts):
// a failure there is a well-formed call with unusable values, answered with
// an ok=false DataToolResult so the agent can correct itself.

import { expectedMessage, isPlainObject } from '../validate.js'
import { invalidParams } from './errors.js'

/** The subset of JSON Schema the tools use: an object of optional or required strings. */
export interface ArgumentsSchema {
  type: 'object'
  properties: Record<string, { type: 'string', description: string }>
  required: string[]
  additionalProperties: false
}

export type ToolArguments = Record<string, string | undefined>

export function checkArguments (schema: ArgumentsSchema, args: unknown): ToolArguments {
  const given = args ?? {}
  if (!isPlainObject(given)) throw invalidParams(expectedMessage('an object', 'arguments', args), { field: 'arguments' })
  const known = Object.keys(schema.properties)
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(schema.properties, key)) {
      const what = known.length === 0 ? 'no arguments' : `an argument among ${known.join(', ')}`
      throw invalidParams(expectedMessage(what, 'arguments', key), { field: `arguments.${key}` })
    }
  }
  const checked: ToolArguments = {}
  for (const key of known) {
    const value = given[key]
    if (value === undefined && !schema.required.includes(key)) continue
    if (typeof value !== 'string') throw invalidParams(expectedMessage('a string', `arguments.${key}`, value), { field: `arguments.${key}` })
    checked[key] = value
  }
  return checked
}

