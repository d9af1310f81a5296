// DataToolResult: what every tool returns, as agents already read it. The
// field names and message shapes are a contract with existing agents.

import { STATUS_CODES } from 'node:http'
import { redactSecrets } from './redact.js'

export interface DataToolResult {
  ok: boolean
  message: string
  /** On success: the spawner's raw response body ("{}" when it was empty). */
  payloadJson?: string
  /** When the spawner answered with a non-2xx status. */
  status?: number
  /** The start of that answer's body. */
  excerpt?: string
  /** When the request never got an answer (DNS, refused, timeout, TLS). */
  error?: string
}

/** JSON Schema of DataToolResult, declared as every tool's outputSchema. */
export const DATA_TOOL_RESULT_SCHEMA = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'true when the spawner accepted the request' },
    message: { type: 'string', description: 'what was done, or why not' },
    payloadJson: { type: 'string', description: "the spawner's raw JSON response, on success" },
    status: { type: 'integer', description: "the spawner's HTTP status, when it refused" },
    excerpt: { type: 'string', description: "the start of the spawner's error body, when it refused" },
    error: { type: 'string', description: 'the transport error, when the spawner could not be reached' }
  },
  required: ['ok', 'message']
} as const

/** Characters of a refusal's body shown to the agent. */
export const EXCERPT_LENGTH = 240

export function succeeded (message: string, body: string): DataToolResult {
  return { ok: true, message, payloadJson: body === '' ? '{}' : body }
}

export function refused (message: string): DataToolResult {
  return { ok: false, message }
}

export function spawnerRejected (status: number, reason: string, body: string): DataToolResult {
  const excerpt = excerptOf(body)
  const phrase = reason === '' ? STATUS_CODES[status] ?? '' : reason
  const statusLine = phrase === '' ? String(status) : `${status} ${phrase}`
  return { ok: false, message: `Spawner API ${statusLine}: ${excerpt}`, status, excerpt }
}

export function spawnerUnreachable (error: string): DataToolResult {
  return { ok: false, message: `Spawner API request failed: ${error}`, error }
}

/** The first 240 characters (code points, so no half emoji), '...' when cut, '<empty>' for nothing.
 * Walked to the cut only: spreading a body of megabytes into an array of
 * its characters once cost eight times the body per call. */
function excerptOf (body: string): string {
  if (body === '') return '<empty>'
  let count = 0
  for (let end = 0; end < body.length; count++) {
    if (count === EXCERPT_LENGTH) return body.slice(0, end) + '...'
    end += (body.codePointAt(end) as number) > 0xffff ? 2 : 1
  }
  return body
}

/**
 * Replaces every echo of a secret (see redact.ts). The spawner client already
 * redacts whole bodies before any excerpt is cut; this last pass covers
 * everything else a result quotes.
 */
export function redactResult (result: DataToolResult, secrets: readonly string[]): DataToolResult {
  if (secrets.every((secret) => secret === '')) return result
  const redact = (text: string): string => redactSecrets(text, secrets)
  const copy: DataToolResult = { ...result, message: redact(result.message) }
  if (result.payloadJson !== undefined) copy.payloadJson = redact(result.payloadJson)
  if (result.excerpt !== undefined) copy.excerpt = redact(result.excerpt)
  if (result.error !== undefined) copy.error = redact(result.error)
  return copy
}

/** MCP CallToolResult: the JSON as text for every client, structured for newer ones. */
export function toCallToolResult (result: DataToolResult): {
  content: Array<{ type: 'text', text: string }>
  structuredContent: DataToolResult
  isError: boolean
} {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result,
    isError: !result.ok
  }
}
