// The base of every error catalogue. Every expected, operational failure is
// a ChorusError with a machine code, an HTTP status and whether its message
// may be shown to a client. Anything else that escapes is a bug: logged,
// answered with 500. Here: the base and the two errors every area raises
// (bad input, bad configuration). Each area's own errors are in its
// errors.ts: the engine's classes (which the pool rebuilds across the worker
// boundary), factories elsewhere (synthesis, http, openai, audio, voices,
// tools, spawner, shared). How an error crosses a thread and comes back as
// the same class: error-registry.ts.

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
  constructor (message: string, details: Record<string, unknown> = {}, options: Pick<ChorusErrorOptions, 'cause'> = {}) {
    super('ERR_INVALID_ARGUMENT', message, { status: 400, details, cause: options.cause })
  }
}

/** Configuration from env or flags is unusable; the process exits with code 2. */
export class ConfigError extends ChorusError {
  constructor (message: string, options: Pick<ChorusErrorOptions, 'cause'> = {}) {
    super('ERR_CONFIG', message, { status: 500, expose: false, cause: options.cause })
  }
}

export function isChorusError (value: unknown): value is ChorusError {
  return value instanceof ChorusError
}
