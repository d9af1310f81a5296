// Cartesia's TTS WebSocket messages (/tts/websocket), checked once at the
// edge, with the field names of Cartesia's reference and client: a
// generation request {model_id, transcript, voice: {mode, id}, output_format:
// {container, encoding, sample_rate}, context_id, continue, add_timestamps},
// and {context_id, cancel: true}. model_id, language, duration, speed,
// add_phoneme_timestamps and use_original_timestamps are accepted and
// ignored (docs/protocols.md); audio_played_ms, Chorus's own, goes with cancel.

import { invalid, isFiniteNumber, isPlainObject } from '../validate.js'
import type { OutputFormat } from '../websocket/output-format.js'
import { messageObject } from '../websocket/errors.js'

export const CARTESIA_ROUTE = '/tts/websocket'

const ENCODINGS = ['pcm_s16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw'] as const
const RATES = [8000, 16000, 22050, 24000, 44100, 48000]

export type CartesiaMessage =
  | { kind: 'cancel', contextId: string, audioPlayedMs?: number }
  | { kind: 'generate', contextId: string, transcript: string, more: boolean, voiceId?: string, output?: OutputFormat, timestamps: boolean, flush: boolean }

function outputFormat (value: unknown): OutputFormat {
  if (!isPlainObject(value)) throw invalid('an object', 'output_format', value)
  if (value.container !== 'raw') throw invalid('"raw"', 'output_format.container', value.container)
  const encoding = value.encoding as typeof ENCODINGS[number]
  if (!ENCODINGS.includes(encoding)) throw invalid(`one of ${ENCODINGS.join(', ')}`, 'output_format.encoding', value.encoding)
  const rate = value.sample_rate as number
  if (!RATES.includes(rate)) throw invalid(`one of ${RATES.join(', ')}`, 'output_format.sample_rate', value.sample_rate)
  const bytes = { pcm_s16le: 2, pcm_f32le: 4, pcm_mulaw: 1, pcm_alaw: 1 }[encoding]
  const options = { pcm_s16le: {}, pcm_f32le: { float32: true }, pcm_mulaw: { ulaw: true }, pcm_alaw: { alaw: true } }[encoding]
  return { name: `${encoding}_${rate}`, format: 'pcm', encoding: { rate, ...options }, bytesPerSecond: bytes * rate }
}

function flag (body: Record<string, unknown>, field: string): boolean {
  const value = body[field]
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw invalid('a boolean', field, value)
  return value
}

export function parseCartesiaMessage (data: string): CartesiaMessage {
  const body = messageObject(data)
  const contextId = body.context_id
  if (typeof contextId !== 'string' || contextId.length === 0 || contextId.length > 128) throw invalid('a string of 1 to 128 characters', 'context_id', contextId)
  if (flag(body, 'cancel')) {
    const played = body.audio_played_ms
    if (played !== undefined && !(isFiniteNumber(played) && played >= 0)) throw invalid('a number of milliseconds of at least 0', 'audio_played_ms', played)
    return { kind: 'cancel', contextId, ...(typeof played === 'number' ? { audioPlayedMs: played } : {}) }
  }
  const transcript = body.transcript ?? ''
  if (typeof transcript !== 'string') throw invalid('a string', 'transcript', transcript)
  let voiceId: string | undefined
  if (body.voice !== undefined) {
    const voice = body.voice
    if (!isPlainObject(voice) || (voice.mode !== undefined && voice.mode !== 'id') || typeof voice.id !== 'string') {
      throw invalid('{"mode": "id", "id": <voice>} (embeddings are not supported)', 'voice', voice)
    }
    voiceId = voice.id
  }
  return {
    kind: 'generate',
    contextId,
    transcript,
    more: flag(body, 'continue'),
    ...(voiceId !== undefined ? { voiceId } : {}),
    ...(body.output_format !== undefined ? { output: outputFormat(body.output_format) } : {}),
    timestamps: flag(body, 'add_timestamps'),
    flush: flag(body, 'flush')
  }
}

/** The context a message that failed its checks names, if it names one: its error goes to that context. */
export function contextOf (data: string): string | undefined {
  try {
    const id = (JSON.parse(data) as { context_id?: unknown }).context_id
    return typeof id === 'string' ? id : undefined
  } catch {
    return undefined
  }
}
