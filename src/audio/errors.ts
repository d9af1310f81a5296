// Errors of the audio encoders. A codec that fails is a bug or a broken
// install, never bad input (input is checked before encoding starts). A
// format whose codec this machine lacks is refused before any work.

import { registerError } from '../error-registry.js'
import { ChorusError, type ChorusErrorOptions } from '../errors.js'

export class EncodingError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_ENCODING', message, { status: 500, expose: false, ...options })
  }
}

/** A format whose codec library is not installed here (AAC without FFmpeg's
 * libavcodec). 400, not 5xx: the request cannot succeed on this server
 * however often it is sent, and OpenAI's clients retry every 5xx; the code
 * tells it apart from a malformed request, the message says what to install. */
export function formatUnavailable (message: string, options: ChorusErrorOptions = {}): ChorusError {
  return new ChorusError('ERR_FORMAT_UNAVAILABLE', message, { status: 400, expose: true, ...options })
}

registerError('ERR_ENCODING', (message, options) => new EncodingError(message, options))
registerError('ERR_FORMAT_UNAVAILABLE', formatUnavailable)
