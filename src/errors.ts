// The error catalogue. Every expected, operational failure is a ChorusError
// with a machine code, an HTTP status and whether its message may be shown
// to a client. Anything else that escapes is a bug: logged, answered with 500.

export interface ChorusErrorOptions {
  status?: number
  expose?: boolean
  details?: Record<string, unknown>
  cause?: unknown
}

export class ChorusError extends Error {
  readonly code: string
  readonly status: number
  readonly expose: boolean
  readonly details: Record<string, unknown>

  constructor (code: string, message: string, options: ChorusErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.status = options.status ?? 500
    this.expose = options.expose ?? this.status < 500
    this.details = options.details ?? {}
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
