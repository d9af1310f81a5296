// Refusals of the TTS service's HTTP layer, as factories: what the request
// looks like (body, content type, path, method) and readiness. Synthesis
// refusals are in synthesis/errors.ts. The messages are the wire contract.

import { ChorusError } from '../errors.js'

export function unsupportedMediaType (type: string): ChorusError {
  return new ChorusError('ERR_UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type ${JSON.stringify(type)}: send application/json`, { status: 415 })
}

/** GET /ready: a voice the service must have loaded is not (yet). */
export function notReady (missing: Array<{ voice: string, reason: string }>): ChorusError {
  return new ChorusError('ERR_NOT_READY', `Not ready: ${missing.map(m => `${m.voice} is ${m.reason}`).join('; ')}`, { status: 503, expose: true, details: { missing } })
}

/** After SIGTERM: a proxy takes the replica out while it finishes what it has. */
export function draining (): ChorusError {
  return new ChorusError('ERR_NOT_READY', 'Not ready: the service is draining (shutting down)', { status: 503, expose: true, details: { draining: true } })
}

export function notFound (): ChorusError {
  return new ChorusError('ERR_NOT_FOUND', 'Not found', { status: 404 })
}

export function methodNotAllowed (method: string, allow: string[]): ChorusError {
  return new ChorusError('ERR_METHOD_NOT_ALLOWED', `Method ${method} is not allowed here; use ${allow.join(', ')}`,
    { status: 405, details: { allow }, headers: { Allow: allow.join(', ') } })
}

/** GET /v1/heard/{id}: no answer of this key's with that request id (or it was forgotten). */
export function heardNotFound (id: string): ChorusError {
  return new ChorusError('ERR_NOT_FOUND', `No answer with request id ${id} for this key: the service keeps the last 4096`, { status: 404, expose: true })
}
