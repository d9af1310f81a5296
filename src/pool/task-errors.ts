// Errors cross the worker boundary as data: a worker answers a failed task
// with {failure: {code, message}} and the pool rebuilds our typed error from
// it, because a thrown Error loses its class and its `code` on the way.

import { ChorusError, InvalidArgumentError } from '../errors.js'
import {
  InferenceError, NativeLoadError, PhonemizeError, SynthesisCancelledError, VoiceConfigError, VoiceLoadError
} from '../engine/errors.js'

export interface TaskFailure {
  failure: { code: string, message: string }
}

export function toFailure (error: unknown): TaskFailure {
  const code = error instanceof ChorusError ? error.code : 'ERR_INFERENCE'
  return { failure: { code, message: error instanceof Error ? error.message : String(error) } }
}

export function isFailure (value: unknown): value is TaskFailure {
  return typeof value === 'object' && value !== null && 'failure' in value
}

const rebuild: Record<string, (message: string) => ChorusError> = {
  ERR_CANCELLED: m => new SynthesisCancelledError(m),
  ERR_VOICE_LOAD: m => new VoiceLoadError(m),
  ERR_VOICE_CONFIG: m => new VoiceConfigError(m),
  ERR_NATIVE_LOAD: m => new NativeLoadError(m),
  ERR_PHONEMIZE: m => new PhonemizeError(m),
  ERR_INVALID_ARGUMENT: m => new InvalidArgumentError(m)
}

/** Our typed error for a failed task. `context` prefixes inference failures. */
export function restoreError (error: unknown, context?: string): Error {
  if (isFailure(error)) {
    const { code, message } = error.failure
    const make = rebuild[code]
    if (make !== undefined) return make(message)
    return new InferenceError(context === undefined ? message : `${context}: ${message}`)
  }
  if (error instanceof ChorusError) return error
  // Anything else: a worker that died, or failed while loading its voice.
  const message = error instanceof Error ? error.message : String(error)
  return context === undefined ? new VoiceLoadError(message, { cause: error }) : new InferenceError(`${context}: ${message}`, { cause: error })
}
