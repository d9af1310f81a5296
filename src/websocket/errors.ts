// Refusals on the input-streaming WebSocket. Sent as a protocol message
// {"error": <message>, "code": <CODE>, "contextId"?: …} (LiveKit's and
// Pipecat's plugins read `error`); the ones marked fatal also close the socket.

import { ChorusError } from '../errors.js'
import { invalid, isPlainObject } from '../validate.js'

export function invalidMessage (reason: string): ChorusError {
  return new ChorusError('ERR_WS_INVALID_MESSAGE', reason, { status: 400 })
}

/** A socket's text message as the JSON object every protocol here sends, or its refusal. */
export function messageObject (data: string): Record<string, unknown> {
  let body: unknown
  try {
    body = JSON.parse(data)
  } catch {
    throw invalidMessage(`Expected a JSON object for the message but received text that is not JSON (${data.length} characters)`)
  }
  if (!isPlainObject(body)) throw invalid('a JSON object', 'the message', body)
  return body
}

/** TTS_WS_MAX_CONTEXTS (per socket) or TTS_WS_MAX_CONTEXTS_TOTAL (the process). */
export function tooManyContexts (limit: number, scope: 'socket' | 'process'): ChorusError {
  const setting = scope === 'socket' ? 'TTS_WS_MAX_CONTEXTS' : 'TTS_WS_MAX_CONTEXTS_TOTAL'
  const where = scope === 'socket' ? 'on this socket' : 'on this server'
  return new ChorusError('ERR_WS_TOO_MANY_CONTEXTS', `Too many open contexts ${where}: the limit is ${limit} (${setting}); close a context first`,
    { status: 429, details: { limit, scope } })
}

/** TTS_WS_MAX_TEXT (per socket) or TTS_WS_MAX_TEXT_TOTAL (the process): text waiting to be spoken. */
export function tooMuchText (limit: number, scope: 'socket' | 'process', received: number): ChorusError {
  const setting = scope === 'socket' ? 'TTS_WS_MAX_TEXT' : 'TTS_WS_MAX_TEXT_TOTAL'
  const where = scope === 'socket' ? 'this socket' : 'the server'
  return new ChorusError('ERR_WS_TEXT_LIMIT',
    `Expected at most ${limit} characters of text waiting to be spoken on ${where} (${setting}) but received ${received}; the message was dropped: send less at once or wait for audio`,
    { status: 413, details: { limit, scope } })
}

export function inactive (seconds: number): ChorusError {
  return new ChorusError('ERR_WS_INACTIVE', `No message for ${seconds} s (inactivity_timeout): the socket is closed`, { status: 408 })
}

export function notFound (path: string): ChorusError {
  return new ChorusError('ERR_NOT_FOUND', `No WebSocket endpoint at ${path}: use /v1/text-to-speech/{voice_id}/stream-input or /multi-stream-input`, { status: 404 })
}
