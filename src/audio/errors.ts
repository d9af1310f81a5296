// Errors of the audio encoders. A codec that fails is a bug or a broken
// install, never bad input (input is checked before encoding starts).

import { registerError } from '../error-registry.js'
import { ChorusError, type ChorusErrorOptions } from '../errors.js'

export class EncodingError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_ENCODING', message, { status: 500, expose: false, ...options })
  }
}

registerError('ERR_ENCODING', (message, options) => new EncodingError(message, options))
