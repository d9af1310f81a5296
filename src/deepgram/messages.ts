// Deepgram's Aura speak WebSocket (/v1/speak), checked once at the edge,
// with the names of Deepgram's reference and SDK: the query (model,
// encoding, sample_rate; mip_opt_out, speed and container accepted and
// ignored) and the client messages Speak {text}, Flush, Clear and Close.
// Clear may carry playback_offset {type: "time_ms", value} (the shape of
// Deepgram's newer Interrupt): what the client played.

import { invalid, isFiniteNumber, isPlainObject } from '../validate.js'
import type { OutputFormat } from '../websocket/output-format.js'
import { messageObject } from '../websocket/errors.js'

export const DEEPGRAM_ROUTE = '/v1/speak'

/** Rates per encoding; the first is the default. 22050, Chorus's own, is
 * the rate of most Piper voices: their audio as made, not resampled. */
const RATES: Record<string, number[]> = { linear16: [24000, 8000, 16000, 22050, 32000, 48000], mulaw: [8000, 16000], alaw: [8000, 16000] }

export interface DeepgramQuery {
  model?: string
  output: OutputFormat
}

export function parseDeepgramQuery (query: URLSearchParams): DeepgramQuery {
  const encoding = query.get('encoding') ?? 'linear16'
  const rates = RATES[encoding]
  if (rates === undefined) throw invalid(`one of ${Object.keys(RATES).join(', ')}`, 'encoding', encoding)
  const given = query.get('sample_rate')
  const rate = given === null ? rates[0] as number : Number(given)
  if (!rates.includes(rate)) throw invalid(`one of ${rates.join(', ')} for ${encoding}`, 'sample_rate', given)
  const model = query.get('model') ?? undefined
  const bytes = encoding === 'linear16' ? 2 : 1
  const options = encoding === 'mulaw' ? { ulaw: true } : encoding === 'alaw' ? { alaw: true } : {}
  return { ...(model !== undefined ? { model } : {}), output: { name: `${encoding}_${rate}`, format: 'pcm', encoding: { rate, ...options }, bytesPerSecond: bytes * rate } }
}

export type DeepgramMessage =
  | { type: 'Speak', text: string }
  | { type: 'Flush' | 'Close' }
  | { type: 'Clear', playedMs?: number }

const TYPES = ['Speak', 'Flush', 'Clear', 'Close']

export function parseDeepgramMessage (data: string): DeepgramMessage {
  const body = messageObject(data)
  const type = body.type
  if (typeof type !== 'string' || !TYPES.includes(type)) throw invalid(`one of ${TYPES.join(', ')}`, 'type', type)
  if (type === 'Speak') {
    if (typeof body.text !== 'string') throw invalid('a string', 'text', body.text)
    return { type, text: body.text }
  }
  if (type !== 'Clear') return { type: type as 'Flush' | 'Close' }
  const offset = body.playback_offset
  if (offset === undefined || offset === null) return { type }
  if (!isPlainObject(offset) || offset.type !== 'time_ms' || !isFiniteNumber(offset.value) || offset.value < 0) {
    throw invalid('{"type": "time_ms", "value": <milliseconds played, at least 0>}', 'playback_offset', offset)
  }
  return { type, playedMs: offset.value }
}
