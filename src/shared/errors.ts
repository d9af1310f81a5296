// Errors of the shared HTTP kit, as factories: the body reader's refusals.

import { ChorusError } from '../errors.js'

/** One code and wording on every server: the TTS service's, which docs/api.md documents. */
export function bodyTooLarge (limit: number): ChorusError {
  return new ChorusError('ERR_BODY_TOO_LARGE', `Request body is too large: the limit is ${limit} bytes`, { status: 413, details: { limit } })
}

/** The client hung up before its body arrived: its doing, not a bug of ours. */
export function requestAborted (cause: unknown): ChorusError {
  return new ChorusError('ERR_REQUEST_ABORTED', 'Request body was not received completely', { status: 400, cause })
}
