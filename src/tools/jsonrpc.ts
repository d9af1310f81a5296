// JSON-RPC 2.0 on the wire: decoding a payload (one message or a batch) into
// classified messages, and encoding responses. Nothing here knows MCP; both
// transports share it. A malformed message becomes an error response for
// that message alone, never an exception.

import { isInteger, isPlainObject } from '../validate.js'
import { invalidRequest, parseError, type JsonRpcError } from './errors.js'
import { redactSecrets } from './redact.js'

export type JsonRpcId = string | number

export interface JsonRpcSuccess {
  jsonrpc: '2.0'
  id: JsonRpcId
  result: unknown
}

export interface JsonRpcFailure {
  jsonrpc: '2.0'
  id: JsonRpcId | null
  error: { code: number, message: string, data?: Record<string, unknown> }
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure

export type IncomingMessage =
  | { kind: 'request', id: JsonRpcId, method: string, params: unknown }
  | { kind: 'notification', method: string, params: unknown }
  /** A client's answer to a server request; this server sends none, so it is ignored. */
  | { kind: 'response' }
  | { kind: 'invalid', id: JsonRpcId | null, error: JsonRpcError }

export type Dispatchable = Extract<IncomingMessage, { kind: 'request' | 'notification' }>

export interface DecodedPayload {
  batch: boolean
  messages: IncomingMessage[]
}

/**
 * Throws the -32700 JsonRpcError when `text` is not JSON, and one -32600 for
 * a batch of more than `maxBatch` messages: each message may cost a spawner
 * call, so a long batch is refused whole rather than answered in part.
 */
export function decodePayload (text: string, maxBatch: number): DecodedPayload {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw parseError()
  }
  if (!Array.isArray(value)) return { batch: false, messages: [classify(value)] }
  // JSON-RPC 2.0 answers an empty batch with a single error, not an array.
  if (value.length === 0) return { batch: false, messages: [invalid(null, 'Invalid Request: empty batch')] }
  if (value.length > maxBatch) {
    throw invalidRequest(`Invalid Request: a batch may hold at most ${maxBatch} messages but this one holds ${value.length}`)
  }
  return { batch: true, messages: value.map(classify) }
}

function isId (value: unknown): value is JsonRpcId {
  // MCP forbids null ids; fractional ids are refused as JSON-RPC discourages them.
  return typeof value === 'string' || isInteger(value)
}

function classify (value: unknown): IncomingMessage {
  if (!isPlainObject(value)) return invalid(null, 'Invalid Request: a message must be a JSON object')
  const id = isId(value.id) ? value.id : null
  if (value.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"')
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method === '') return invalid(id, 'Invalid Request: "method" must be a non-empty string')
    if ('params' in value && !isPlainObject(value.params) && !Array.isArray(value.params)) {
      return invalid(id, 'Invalid Request: "params" must be an object or an array')
    }
    if (!('id' in value)) return { kind: 'notification', method: value.method, params: value.params }
    if (id === null) return invalid(null, 'Invalid Request: "id" must be a string or an integer')
    return { kind: 'request', id, method: value.method, params: value.params }
  }
  if (('result' in value || 'error' in value) && 'id' in value) return { kind: 'response' }
  return invalid(id, 'Invalid Request: a message needs a "method", or a "result" or "error"')
}

function invalid (id: JsonRpcId | null, message: string): IncomingMessage {
  return { kind: 'invalid', id, error: invalidRequest(message) }
}

export function success (id: JsonRpcId, result: unknown): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result }
}

/** The error object carries the message and details, never a stack. Both
 * may quote what the client sent (a method, a tool name, an argument key),
 * so `secrets` sent there by mistake are redacted, as in tool results. */
export function failure (id: JsonRpcId | null, error: JsonRpcError, secrets: readonly string[] = []): JsonRpcFailure {
  const body: JsonRpcFailure['error'] = { code: error.rpcCode, message: redactSecrets(error.message, secrets) }
  if (Object.keys(error.details).length > 0) body.data = redactDeep(error.details, secrets) as Record<string, unknown>
  return { jsonrpc: '2.0', id, error: body }
}

function redactDeep (value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets)
  if (Array.isArray(value)) return value.map(item => redactDeep(item, secrets))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactSecrets(key, secrets), redactDeep(item, secrets)]))
}

/**
 * Runs every message of a payload (a batch concurrently) and gathers the
 * answers: one response, an array for a batch, or undefined when nothing is
 * owed (only notifications and responses).
 */
export async function answerPayload (
  payload: DecodedPayload,
  dispatch: (message: Dispatchable) => Promise<JsonRpcResponse | undefined>
): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
  const answers = await Promise.all(payload.messages.map(async (message) => {
    if (message.kind === 'invalid') return failure(message.id, message.error)
    if (message.kind === 'response') return undefined
    return await dispatch(message)
  }))
  const owed = answers.filter((answer): answer is JsonRpcResponse => answer !== undefined)
  if (owed.length === 0) return undefined
  return payload.batch ? owed : owed[0]
}
