// The error catalogue. Every expected, operational failure is a ChorusError
// with a machine code, an HTTP status and whether its message may be shown
// to a client. Anything else that escapes is a bug: logged, answered with 500.

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

/** ONNX Runtime failed while running a model. */
/** A voice whose files failed to load: refused until its files change. */
export class VoiceBrokenError extends ChorusError {
  constructor (readonly voice: string, readonly reason: string) {
    super('ERR_VOICE_BROKEN', `Voice ${voice} cannot be loaded: ${reason}`, { status: 500, expose: true, details: { voice, reason } })
  }
}

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

// ---- HTTP service errors. The `error` strings are the wire contract. ----

export class InvalidJsonError extends ChorusError {
  constructor () {
    super('ERR_INVALID_JSON', 'Invalid JSON body', { status: 400 })
  }
}

export class MissingTextError extends ChorusError {
  constructor () {
    super('ERR_MISSING_TEXT', 'Missing required field: text', { status: 400 })
  }
}

export class VoiceNotFoundError extends ChorusError {
  /** `folder` is named only to someone on the machine (the CLI), never in an HTTP answer. */
  constructor (name: string, availableVoices: string[], folder?: string) {
    const where = folder === undefined ? '' : ` in ${folder}; available: ${availableVoices.join(', ')}`
    super('ERR_VOICE_NOT_FOUND', `Voice model not found: ${name}${where}`, { status: 400, details: { available_voices: availableVoices } })
  }
}

export class TextTooLongError extends ChorusError {
  constructor (length: number, limit: number) {
    super('ERR_TEXT_TOO_LONG', `Text is too long: ${length} characters, the limit is ${limit}`, { status: 413, details: { limit } })
  }
}

export class BodyTooLargeError extends ChorusError {
  constructor (limit: number) {
    super('ERR_BODY_TOO_LARGE', `Request body is too large: the limit is ${limit} bytes`, { status: 413, details: { limit } })
  }
}

export class UnsupportedMediaTypeError extends ChorusError {
  constructor (type: string) {
    super('ERR_UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type ${JSON.stringify(type)}: send application/json`, { status: 415 })
  }
}

export class OverloadedError extends ChorusError {
  readonly retryAfterSeconds: number
  constructor (retryAfterSeconds: number) {
    super('ERR_OVERLOADED', 'Server is busy: too many requests in progress, retry later', { status: 503, expose: true, headers: { 'Retry-After': String(retryAfterSeconds) } })
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** GET /ready: a voice the service must have loaded is not (yet). */
export class NotReadyError extends ChorusError {
  constructor (missing: Array<{ voice: string, reason: string }>) {
    super('ERR_NOT_READY', `Not ready: ${missing.map(m => `${m.voice} is ${m.reason}`).join('; ')}`, { status: 503, expose: true, details: { missing } })
  }
}

export class RequestTimeoutError extends ChorusError {
  constructor () {
    super('ERR_TIMEOUT', 'TTS request timed out', { status: 504, expose: true })
  }
}

export class NotFoundError extends ChorusError {
  constructor () {
    super('ERR_NOT_FOUND', 'Not found', { status: 404 })
  }
}

export class MethodNotAllowedError extends ChorusError {
  readonly allow: string[]
  constructor (method: string, allow: string[]) {
    super('ERR_METHOD_NOT_ALLOWED', `Method ${method} is not allowed here; use ${allow.join(', ')}`, { status: 405, details: { allow }, headers: { Allow: allow.join(', ') } })
    this.allow = allow
  }
}
