// Refusals of a synthesis request, as factories, wherever it comes from
// (POST /tts, the OpenAI endpoint, chorus say). The messages and codes are
// the wire contract older clients read (README, Errors).

import { ChorusError } from '../errors.js'

/** A speech stopped from outside (its reader left, it was cut): the
 * engine's class, which protocol adapters tell apart from a failure. */
export { SynthesisCancelledError } from '../engine/errors.js'

export function invalidJson (): ChorusError {
  return new ChorusError('ERR_INVALID_JSON', 'Invalid JSON body', { status: 400 })
}

export function missingText (): ChorusError {
  return new ChorusError('ERR_MISSING_TEXT', 'Missing required field: text', { status: 400 })
}

/** `folder` is named only to someone on the machine (the CLI), never in an HTTP answer. */
export function voiceNotFound (name: string, availableVoices: string[], folder?: string): ChorusError {
  const where = folder === undefined ? '' : ` in ${folder}; available: ${availableVoices.join(', ')}`
  return new ChorusError('ERR_VOICE_NOT_FOUND', `Voice model not found: ${name}${where}`, { status: 400, details: { available_voices: availableVoices } })
}

export function textTooLong (length: number, limit: number): ChorusError {
  return new ChorusError('ERR_TEXT_TOO_LONG', `Text is too long: ${length} characters, the limit is ${limit}`, { status: 413, details: { limit } })
}

/** Every admission slot is taken: 503 at once, with a Retry-After. */
export function overloaded (retryAfterSeconds: number): ChorusError {
  return new ChorusError('ERR_OVERLOADED', 'Server is busy: too many requests in progress, retry later',
    { status: 503, expose: true, headers: { 'Retry-After': String(retryAfterSeconds) } })
}

/** The streams open already need all the audio the inference slots make
 * (TTS_STREAM_ADMISSION): a new one would make every stream run dry. */
export function streamsOverloaded (retryAfterSeconds: number, streams: number, capacity: number): ChorusError {
  const made = Math.round(capacity * 10) / 10
  return new ChorusError('ERR_OVERLOADED', `Server is busy: ${streams} streams are playing and the service makes ${made} seconds of audio per second, retry later`,
    { status: 503, expose: true, headers: { 'Retry-After': String(retryAfterSeconds) }, details: { streams, capacity_audio_seconds_per_second: made } })
}

/** The request's time (TTS_TIMEOUT_SECONDS) ran out. */
export function requestTimedOut (): ChorusError {
  return new ChorusError('ERR_TIMEOUT', 'TTS request timed out', { status: 504, expose: true })
}

/** A request whose audio would pass TTS_MAX_AUDIO_SECONDS: refused before any
 * work when its pauses alone would (`field` sentence_silence), else stopped
 * when the samples made reach it (`field` text). 413 while nothing was sent;
 * after that the stream is ended. */
export function audioTooLong (field: 'sentence_silence' | 'text', limitSeconds: number, received: string, receivedSeconds: number): ChorusError {
  return new ChorusError('ERR_AUDIO_TOO_LONG', `Expected at most ${limitSeconds} seconds of audio (TTS_MAX_AUDIO_SECONDS) for ${field} but received ${received}`,
    { status: 413, details: { field, limit_seconds: limitSeconds, received_seconds: receivedSeconds } })
}

/** A whole answer could not be kept until its end: its spool folder
 * (TTS_SPOOL_DIR) is full or cannot be written. The cause, with the path,
 * goes to the log; the client is told what it can do. */
export function spoolFailed (cause: unknown): ChorusError {
  return new ChorusError('ERR_INSUFFICIENT_STORAGE',
    'The service has no room to keep this answer whole right now: ask for a stream ("stream": true) or retry later',
    { status: 507, expose: true, cause })
}
