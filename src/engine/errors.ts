// The engine's errors: a voice's files, the native addon, espeak-ng and ONNX
// Runtime failing, and synthesis stopped from outside. Classes, because the
// pool and the callers tell them apart (instanceof); registered, so they come
// back as themselves across the worker boundary (../error-registry.ts).

import { registerError } from '../error-registry.js'
import { ChorusError, type ChorusErrorOptions } from '../errors.js'

/** A voice's .onnx.json is missing, unreadable, malformed or inconsistent. */
export class VoiceConfigError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_VOICE_CONFIG', message, { status: 500, expose: false, ...options })
  }
}

/** A voice's model could not be loaded (missing file, not a Piper model, …). */
export class VoiceLoadError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_VOICE_LOAD', message, { status: 500, expose: false, ...options })
  }
}

/** The native addon, ONNX Runtime or espeak-ng data could not be loaded. */
export class NativeLoadError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_NATIVE_LOAD', message, { status: 500, expose: false, ...options })
  }
}

/** espeak-ng refused: unknown espeak voice, uninitialised, … */
export class PhonemizeError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_PHONEMIZE', message, { status: 500, expose: false, ...options })
  }
}

/** ONNX Runtime failed while running a model. */
export class InferenceError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_INFERENCE', message, { status: 500, expose: false, ...options })
  }
}

/** Synthesis was stopped from outside (timeout, client gone, shutdown). */
export class SynthesisCancelledError extends ChorusError {
  constructor (message = 'Synthesis was cancelled', options: ChorusErrorOptions = {}) {
    super('ERR_CANCELLED', message, { status: 499, expose: false, ...options })
  }
}

registerError('ERR_VOICE_CONFIG', (message, options) => new VoiceConfigError(message, options))
registerError('ERR_VOICE_LOAD', (message, options) => new VoiceLoadError(message, options))
registerError('ERR_NATIVE_LOAD', (message, options) => new NativeLoadError(message, options))
registerError('ERR_PHONEMIZE', (message, options) => new PhonemizeError(message, options))
registerError('ERR_INFERENCE', (message, options) => new InferenceError(message, options))
registerError('ERR_CANCELLED', (message, options) => new SynthesisCancelledError(message, options))
