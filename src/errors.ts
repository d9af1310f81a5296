// The base of every error catalogue. Every expected, operational failure is
// a ChorusError with a machine code, an HTTP status and whether its message
// may be shown to a client. Anything else that escapes is a bug: logged,
// answered with 500. Here: the base, the two errors every area raises (bad
// input, bad configuration) and the engine's errors, which the pool rebuilds
// when they cross the worker boundary (pool/task-errors.ts). Each area's own
// refusals are factories in its errors.ts (synthesis, http, openai, audio,
// voices, tools, spawner, shared).

export interface ChorusErrorOptions {
  status?: number
  expose?: boolean
  details?: Record<string, unknown>
  /** Response headers that go with the error's answer (Retry-After, Allow). */
  headers?: Record<string, string>
  cause?: unknown
}

export class ChorusError extends Error {
  readonly code: string
  readonly status: number
  readonly expose: boolean
  readonly details: Record<string, unknown>
  readonly headers: Record<string, string>

  constructor (code: string, message: string, options: ChorusErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.status = options.status ?? 500
    this.expose = options.expose ?? this.status < 500
    this.details = options.details ?? {}
    this.headers = options.headers ?? {}
  }
}

/** An argument, field, flag or variable did not have the expected form. */
export class InvalidArgumentError extends ChorusError {
  constructor (message: string, details: Record<string, unknown> = {}) {
    super('ERR_INVALID_ARGUMENT', message, { status: 400, details })
  }
}

/** Configuration from env or flags is unusable; the process exits with code 2. */
export class ConfigError extends ChorusError {
  constructor (message: string) {
    super('ERR_CONFIG', message, { status: 500, expose: false })
  }
}

export function isChorusError (value: unknown): value is ChorusError {
  return value instanceof ChorusError
}

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

/** A voice whose files failed to load: refused until its files change. */
export class VoiceBrokenError extends ChorusError {
  constructor (readonly voice: string, readonly reason: string) {
    super('ERR_VOICE_BROKEN', `Voice ${voice} cannot be loaded: ${reason}`, { status: 500, expose: true, details: { voice, reason } })
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
