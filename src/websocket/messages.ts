// The socket's inputs, checked once at the edge: the URL (path and query)
// and each client message, with the field names of ElevenLabs' reference.
// What Chorus does not use (model_id, language_code, enable_logging,
// stability, similarity_boost, style, use_speaker_boost, xi_api_key in a
// message) is accepted and ignored. enable_ssml_parsing reads the text as
// SSML; pronunciation_dictionary_locators name lexicons for the context
// (docs/pronunciation.md). report_heard and audio_played_ms, Chorus's own,
// go with close_context: they ask for the heard message after isFinal
// (counted from the position played, when given); a client that knows only
// ElevenLabs' messages gets nothing after isFinal.

import type { LexiconLocator } from '../synthesis/lexicon-source.js'
import { parseLexiconLocators, type TtsRequest } from '../synthesis/tts-request.js'
import { invalid, isFiniteNumber, isInteger, isPlainObject } from '../validate.js'
import { parseOutputFormat, type OutputFormat } from './output-format.js'
import { messageObject } from './errors.js'

/** The socket's endpoints, as route patterns: what an upgrade may ask for. */
export const SOCKET_ROUTES = ['/v1/text-to-speech/:voice_id/stream-input', '/v1/text-to-speech/:voice_id/multi-stream-input'] as const

const PATHS = SOCKET_ROUTES.map(route => ({ pattern: new RegExp(`^${route.replace(':voice_id', '([^/]+)')}$`), multi: route.endsWith('/multi-stream-input') }))

export interface SocketOptions {
  voiceId: string
  multi: boolean
  output: OutputFormat
  inactivitySeconds: number
  syncAlignment: boolean
  autoMode: boolean
  /** enable_ssml_parsing: each context's text is SSML. */
  ssml: boolean
}

/** ElevenLabs' bounds on inactivity_timeout, in seconds. */
export const INACTIVITY = { min: 1, max: 180, default: 20 }

/** The endpoint a path names, or undefined for any other path. */
export function matchSocketPath (pathname: string): { voiceId: string, multi: boolean } | undefined {
  for (const { pattern, multi } of PATHS) {
    const match = pattern.exec(pathname)
    if (match === null) continue
    try {
      return { voiceId: decodeURIComponent(match[1] as string), multi }
    } catch {
      return undefined
    }
  }
  return undefined
}

function booleanParam (query: URLSearchParams, name: string): boolean {
  const value = query.get(name)
  if (value === null || value === '') return false
  if (value === 'true' || value === '1') return true
  if (value === 'false' || value === '0') return false
  throw invalid('true or false', name, value)
}

export function parseSocketQuery (voiceId: string, multi: boolean, query: URLSearchParams): SocketOptions {
  const timeout = query.get('inactivity_timeout')
  let inactivitySeconds = INACTIVITY.default
  if (timeout !== null && timeout !== '') {
    inactivitySeconds = Number(timeout)
    if (!/^\d+$/.test(timeout) || inactivitySeconds < INACTIVITY.min || inactivitySeconds > INACTIVITY.max) {
      throw invalid(`an integer from ${INACTIVITY.min} to ${INACTIVITY.max} (seconds)`, 'inactivity_timeout', timeout)
    }
  }
  return {
    voiceId,
    multi,
    output: parseOutputFormat(query.get('output_format') ?? undefined),
    inactivitySeconds,
    syncAlignment: booleanParam(query, 'sync_alignment'),
    autoMode: booleanParam(query, 'auto_mode'),
    ssml: booleanParam(query, 'enable_ssml_parsing')
  }
}

/** One client message, as the socket acts on it. */
export interface ClientMessage {
  text?: string
  contextId?: string
  flush: boolean
  tryTrigger: boolean
  closeContext: boolean
  closeSocket: boolean
  voiceSettings?: Record<string, unknown>
  schedule?: number[]
  /** pronunciation_dictionary_locators: lexicons for the context it opens. */
  lexicons?: LexiconLocator[]
  /** Chorus's own, with close_context: send what was heard after isFinal
   * (report_heard, or audio_played_ms: how much of the context's audio the client played). */
  reportHeard: boolean
  audioPlayedMs?: number
}

/** ElevenLabs' bounds on each chunk_length_schedule entry. */
export const SCHEDULE = { min: 50, max: 500, entries: 16 }

function optionalBoolean (body: Record<string, unknown>, field: string): boolean {
  const value = body[field]
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw invalid('a boolean', field, value)
  return value
}

function schedule (body: Record<string, unknown>): number[] | undefined {
  // The SDK's SendText names it generator_config; the reference generation_config.
  const config = body.generation_config ?? body.generator_config
  if (config === undefined || config === null) return undefined
  if (!isPlainObject(config)) throw invalid('an object', 'generation_config', config)
  const list = config.chunk_length_schedule
  if (list === undefined || list === null) return undefined
  if (!Array.isArray(list) || list.length === 0 || list.length > SCHEDULE.entries ||
      !list.every(n => isInteger(n) && n >= SCHEDULE.min && n <= SCHEDULE.max)) {
    throw invalid(`1 to ${SCHEDULE.entries} integers from ${SCHEDULE.min} to ${SCHEDULE.max}`, 'generation_config.chunk_length_schedule', list)
  }
  return list as number[]
}

export function parseClientMessage (data: string): ClientMessage {
  const body = messageObject(data)
  const text = body.text
  if (text !== undefined && text !== null && typeof text !== 'string') throw invalid('a string', 'text', text)
  const contextId = body.context_id
  if (contextId !== undefined && contextId !== null && (typeof contextId !== 'string' || contextId.length === 0 || contextId.length > 128)) {
    throw invalid('a string of 1 to 128 characters', 'context_id', contextId)
  }
  const voiceSettings = body.voice_settings
  if (voiceSettings !== undefined && voiceSettings !== null && !isPlainObject(voiceSettings)) throw invalid('an object', 'voice_settings', voiceSettings)
  const chunkSchedule = schedule(body)
  const lexicons = parseLexiconLocators({ pronunciation_dictionary_locators: body.pronunciation_dictionary_locators })
  const played = body.audio_played_ms
  if (played !== undefined && played !== null && !(isFiniteNumber(played) && played >= 0)) throw invalid('a number of milliseconds of at least 0', 'audio_played_ms', played)
  return {
    ...(typeof text === 'string' ? { text } : {}),
    ...(typeof contextId === 'string' ? { contextId } : {}),
    flush: optionalBoolean(body, 'flush'),
    tryTrigger: optionalBoolean(body, 'try_trigger_generation'),
    closeContext: optionalBoolean(body, 'close_context'),
    closeSocket: optionalBoolean(body, 'close_socket'),
    ...(isPlainObject(voiceSettings) ? { voiceSettings } : {}),
    ...(chunkSchedule !== undefined ? { schedule: chunkSchedule } : {}),
    ...(lexicons !== undefined ? { lexicons } : {}),
    reportHeard: optionalBoolean(body, 'report_heard') || typeof played === 'number',
    ...(typeof played === 'number' ? { audioPlayedMs: played } : {})
  }
}

function settingNumber (settings: Record<string, unknown>, field: string): number | undefined {
  const value = settings[field]
  if (value === undefined || value === null) return undefined
  // Ranges are the voice's to check (SpeechService.prepare), as for /tts.
  if (!isFiniteNumber(value)) throw invalid('a number', `voice_settings.${field}`, value)
  return value
}

/** A context's request without its text: the voice, and Chorus's own
 * settings riding in voice_settings (length_scale, noise_scale, noise_w,
 * speaker; ElevenLabs' speed as OpenAI's endpoint reads it). */
export function contextRequest (voice: string, speaker: number | string | undefined, settings: Record<string, unknown> = {},
  reading: Pick<TtsRequest, 'ssml' | 'lexicons'> = {}): Omit<TtsRequest, 'text'> {
  const ownSpeaker = settings.speaker
  if (ownSpeaker !== undefined && ownSpeaker !== null && !isInteger(ownSpeaker) && typeof ownSpeaker !== 'string') {
    throw invalid('an integer speaker id or a speaker name', 'voice_settings.speaker', ownSpeaker)
  }
  const chosen = ownSpeaker ?? speaker
  const speed = settingNumber(settings, 'speed')
  if (speed !== undefined && speed <= 0) throw invalid('a number above 0', 'voice_settings.speed', speed)
  return {
    voice,
    ...(chosen !== undefined && chosen !== null ? { speaker: chosen as number | string } : {}),
    lengthScale: settingNumber(settings, 'length_scale'),
    noiseScale: settingNumber(settings, 'noise_scale'),
    noiseW: settingNumber(settings, 'noise_w'),
    ...(speed !== undefined ? { speed } : {}),
    stream: true,
    ...(reading.ssml === true ? { ssml: true } : {}),
    ...(reading.lexicons !== undefined ? { lexicons: reading.lexicons } : {})
  }
}
