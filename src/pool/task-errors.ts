// Errors cross the worker boundary as data: a worker answers a failed task
// with {failure: <serialised error>} (the registry's form, ../error-registry.ts),
// and the pool rebuilds the same class from it, with the worker's stack after
// its own and the cause chain. A bug in a worker (a TypeError, …) comes back
// as that bug, so the service answers it with the generic 500 and logs it.

import { rebuildError, rebuildIfRegistered, serializeError, type SerializedError } from '../error-registry.js'
import { ChorusError } from '../errors.js'
import { InferenceError, VoiceLoadError } from '../engine/errors.js'

export interface TaskFailure {
  failure: SerializedError
}

export function toFailure (error: unknown): TaskFailure {
  return { failure: serializeError(error) }
}

export function isFailure (value: unknown): value is TaskFailure {
  return typeof value === 'object' && value !== null && 'failure' in value
}

/**
 * The error a failed task stands for. A failure the worker answered is
 * rebuilt as it was thrown. Otherwise the worker itself failed: while loading
 * its voice (no `context`: a VoiceLoadError, unless Node kept a registered
 * code of ours on the way), or while running the task (`context` names it:
 * an InferenceError, the worker's error as its cause).
 */
export function restoreError (error: unknown, context?: string): Error {
  if (isFailure(error)) return rebuildError(error.failure)
  const rebuilt = rebuildIfRegistered(error)
  if (rebuilt instanceof ChorusError) return rebuilt
  const message = error instanceof Error ? error.message : String(error)
  return context === undefined ? new VoiceLoadError(message, { cause: error }) : new InferenceError(`${context}: ${message}`, { cause: error })
}
