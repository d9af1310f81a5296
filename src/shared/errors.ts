// Errors of the shared HTTP kit, as factories: the body reader's refusals.

import { ChorusError } from '../errors.js'

export function payloadTooLarge (limit: number): ChorusError {
  return new ChorusError('ERR_PAYLOAD_TOO_LARGE', `Payload Too Large: the body exceeds ${limit} bytes`, { status: 413 })
}

/** The client hung up before its body arrived: its doing, not a bug of ours. */
export function requestAborted (cause: unknown): ChorusError {
  return new ChorusError('ERR_REQUEST_ABORTED', 'Request body was not received completely', { status: 400, cause })
}
