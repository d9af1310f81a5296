// The one table from an error code to its class, and the form an error takes
// to cross a thread boundary (the voice workers, the encoder workers) or to
// come out of the native addon. A thrown Error loses its class, `code`,
// details and cause on the way through postMessage; so a thread sends
// serializeError()'s plain object, and the receiver calls rebuildError(),
// which makes the same class again (when the code is registered here) with
// the sender's stack after the receiver's and the cause chain rebuilt too.
//
// Each catalogue registers its classes where it defines them (errors.ts of
// each area), so any thread that could have constructed a class has it in
// the table. A code nobody registered still comes back as a ChorusError with
// its code, status, expose, details and headers: the answer is the same,
// only `instanceof` a subclass is lost.
//
// Anything that is not a ChorusError is a bug (a TypeError, a RangeError, an
// Error from a library): it comes back as the same built-in class with its
// message and stack, never as an operational error, so the error middleware
// answers it with the generic 500 and logs the stack.

import { inspect } from 'node:util'
import { ChorusError, ConfigError, InvalidArgumentError, type ChorusErrorOptions } from './errors.js'

/** Builds a registered class from what crossed; status and expose are the class's own. */
export type ErrorFactory = (message: string, options: ChorusErrorOptions) => ChorusError

/** An error as plain, cloneable data. */
export interface SerializedError {
  /** True for our ChorusErrors; false for a bug (or a foreign Error in a cause chain). */
  chorus: boolean
  name: string
  message: string
  code?: string
  status?: number
  expose?: boolean
  details?: Record<string, unknown>
  headers?: Record<string, string>
  stack?: string
  /** The cause, serialised; a cause that is not an Error travels as text. */
  cause?: SerializedError | string
}

const factories = new Map<string, ErrorFactory>()

/** Enters `code`'s class in the table. Codes are unique across catalogues. */
export function registerError (code: string, factory: ErrorFactory): void {
  if (factories.has(code)) throw new Error(`Error code ${code} is registered twice`)
  factories.set(code, factory)
}

/** A new error of `code`'s registered class; undefined if no class has the code. */
export function createError (code: string, message: string, options: ChorusErrorOptions = {}): ChorusError | undefined {
  return factories.get(code)?.(message, options)
}

function isRegisteredCode (code: unknown): code is string {
  return typeof code === 'string' && factories.has(code)
}

// A cause chain longer than this is cut: a loop of causes must not hang the sender.
const MAX_CAUSES = 8

/** `error` as data that survives structured cloning. */
export function serializeError (error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { chorus: false, name: 'Error', message: String(error) }
  const code = (error as { code?: unknown }).code
  const serialized: SerializedError = {
    chorus: error instanceof ChorusError,
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack === undefined ? {} : { stack: error.stack })
  }
  if (error instanceof ChorusError) {
    serialized.status = error.status
    serialized.expose = error.expose
    serialized.headers = { ...error.headers }
  }
  // A ChorusError's, or one that Node's own cloning of a dying worker's error kept.
  const details = (error as { details?: unknown }).details
  if (typeof details === 'object' && details !== null) serialized.details = cloneable(details as Record<string, unknown>)
  if (error.cause !== undefined && depth < MAX_CAUSES) {
    serialized.cause = error.cause instanceof Error ? serializeError(error.cause, depth + 1) : inspect(error.cause, { depth: 2 })
  }
  return serialized
}

/** Details are meant to be plain values; anything that would not clone travels as text. */
function cloneable (details: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(details)
  } catch {
    return Object.fromEntries(Object.entries(details).map(([key, value]) => [key, inspect(value, { depth: 2 })]))
  }
}

function isSerializedError (value: unknown): value is SerializedError {
  return typeof value === 'object' && value !== null && typeof (value as SerializedError).chorus === 'boolean' &&
    typeof (value as SerializedError).message === 'string' && typeof (value as SerializedError).name === 'string'
}

const BUILT_IN: Record<string, ErrorConstructor> = {
  Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError
}

/** The error `serialized` stood for, thrown again on this side. */
export function rebuildError (serialized: SerializedError): Error {
  const cause = serialized.cause === undefined
    ? undefined
    : typeof serialized.cause === 'string' ? serialized.cause : rebuildError(serialized.cause)
  const error = construct(serialized, cause)
  // This side's frames start at the caller: the registry's own are noise.
  Error.captureStackTrace(error, rebuildError)
  error.stack = joinStacks(error, serialized.stack)
  return error
}

function construct (serialized: SerializedError, cause: unknown): Error {
  const { code, message } = serialized
  const options: ChorusErrorOptions = {
    details: serialized.details ?? {},
    headers: serialized.headers ?? {},
    ...(cause === undefined ? {} : { cause })
  }
  const factory = code === undefined ? undefined : factories.get(code)
  if (factory !== undefined) return factory(message, options)
  if (serialized.chorus && code !== undefined) {
    return new ChorusError(code, message, { ...options, status: serialized.status, expose: serialized.expose })
  }
  const Builtin = BUILT_IN[serialized.name] ?? Error
  const error: Error & { code?: string } = new Builtin(message, cause === undefined ? undefined : { cause })
  if (error.name !== serialized.name) error.name = serialized.name
  if (code !== undefined) error.code = code
  return error
}

/** The receiver's frames (where the error surfaced), then the sender's (where it happened). */
function joinStacks (error: Error, sent: string | undefined): string {
  const header = `${error.name}: ${error.message}`
  const here = framesOf(error.stack)
  const there = framesOf(sent)
  if (there === '') return `${header}${here === '' ? '' : `\n${here}`}`
  return `${header}${here === '' ? '' : `\n${here}`}\n    --- thrown in another thread ---\n${there}`
}

/** A stack without its first line(s) of name and message: the lines that start with "at". */
function framesOf (stack: string | undefined): string {
  if (stack === undefined) return ''
  return stack.split('\n').filter(line => /^\s+at /.test(line) || line.includes('--- thrown in another thread ---')).join('\n')
}

/** What a rejected worker task (or a worker that died) carried: rebuilt if it
 * was our data, or an Error whose registered code survived Node's own
 * cloning (an error thrown while a worker started keeps its own fields). */
export function rebuildIfRegistered (error: unknown): unknown {
  if (isSerializedError(error)) return rebuildError(error)
  if (error instanceof Error && !(error instanceof ChorusError) && isRegisteredCode((error as { code?: unknown }).code)) {
    return rebuildError(serializeError(error))
  }
  return error
}

registerError('ERR_INVALID_ARGUMENT', (message, options) => new InvalidArgumentError(message, options.details, options))
registerError('ERR_CONFIG', (message, options) => new ConfigError(message, options))
