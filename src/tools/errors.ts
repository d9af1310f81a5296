// Errors of the tool server. JSON-RPC failures carry the standard numeric
// code next to the catalogue's machine code; HTTP-level refusals are plain
// ChorusErrors with a status. Factories keep messages in one place.

import { ChorusError } from '../errors.js'

const JSONRPC_PARSE_ERROR = -32700
const JSONRPC_INVALID_REQUEST = -32600
const JSONRPC_METHOD_NOT_FOUND = -32601
const JSONRPC_INVALID_PARAMS = -32602
const JSONRPC_INTERNAL_ERROR = -32603
/** Implementation-defined server error: the server is at a limit, the request was fine. */
const JSONRPC_SERVER_BUSY = -32000

/** A failure to be answered as a JSON-RPC error object, never as an exception. */
export class JsonRpcError extends ChorusError {
  readonly rpcCode: number

  constructor (rpcCode: number, code: string, message: string, details: Record<string, unknown> = {}) {
    super(code, message, { status: 400, details })
    this.rpcCode = rpcCode
  }
}

export function parseError (message = 'Parse error: the body is not valid JSON'): JsonRpcError {
  return new JsonRpcError(JSONRPC_PARSE_ERROR, 'ERR_JSONRPC_PARSE', message)
}

export function invalidRequest (message: string): JsonRpcError {
  return new JsonRpcError(JSONRPC_INVALID_REQUEST, 'ERR_JSONRPC_INVALID_REQUEST', message)
}

export function methodNotFound (method: string): JsonRpcError {
  return new JsonRpcError(JSONRPC_METHOD_NOT_FOUND, 'ERR_JSONRPC_METHOD_NOT_FOUND', `Method not found: ${method}`)
}

export function invalidParams (message: string, details: Record<string, unknown> = {}): JsonRpcError {
  return new JsonRpcError(JSONRPC_INVALID_PARAMS, 'ERR_JSONRPC_INVALID_PARAMS', message, details)
}

/** The message a client sees for a bug; the details stay in the log. */
export function internalError (): JsonRpcError {
  return new JsonRpcError(JSONRPC_INTERNAL_ERROR, 'ERR_JSONRPC_INTERNAL', 'Internal error')
}

/**
 * The server is at one of its limits; the request itself was fine. HTTP
 * answers it with `status` and a Retry-After header.
 */
export class ServerBusyError extends JsonRpcError {
  readonly httpStatus: number
  readonly retryAfterSeconds: number

  constructor (code: string, message: string, httpStatus: number, retryAfterSeconds: number) {
    super(JSONRPC_SERVER_BUSY, code, message)
    this.httpStatus = httpStatus
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** Too many new sessions from one address within the minute (HTTP 429). */
export function tooManySessions (limit: number, retryAfterSeconds: number): ServerBusyError {
  return new ServerBusyError('ERR_TOO_MANY_SESSIONS',
    `Too Many Requests: at most ${limit} new sessions per minute from one address; retry in ${retryAfterSeconds} s`, 429, retryAfterSeconds)
}

/** Every session is in use, so a newcomer is refused rather than evicting one (HTTP 503). */
export function sessionsFull (limit: number, retryAfterSeconds: number): ServerBusyError {
  return new ServerBusyError('ERR_SESSIONS_FULL',
    `Service Unavailable: all ${limit} sessions are in use; retry in ${retryAfterSeconds} s`, 503, retryAfterSeconds)
}

export function unauthorized (): ChorusError {
  return new ChorusError('ERR_UNAUTHORIZED', 'Unauthorized', { status: 401 })
}

export function forbiddenOrigin (origin: string): ChorusError {
  return new ChorusError('ERR_FORBIDDEN_ORIGIN', `Origin not allowed: ${origin}`, { status: 403 })
}

export function notAcceptable (): ChorusError {
  return new ChorusError('ERR_NOT_ACCEPTABLE', 'Not Acceptable: the client must accept application/json', { status: 406 })
}

export function unsupportedMediaType (): ChorusError {
  return new ChorusError('ERR_UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type: send Content-Type application/json', { status: 415 })
}
