// Timing as clients receive it: the request field that asks for it, and
// one JSON shape for events, used by the whole JSON answer and by the
// Server-Sent Events of a streamed one. Offsets in samples (exact) and in
// milliseconds from the answer's start (rounded to 0.01 ms for reading).

import { isPlainObject, invalid } from '../../validate.js'
import { TIMING_KINDS, VISEMES, type TimingChunk, type TimingKind } from '../timing.js'

/** The `timestamps` field of a request body: undefined when absent. */
export function parseTimestamps (body: unknown): TimingKind[] | undefined {
  if (!isPlainObject(body)) return undefined
  const value = body.timestamps
  if (value === undefined || value === null) return undefined
  const what = `an array of ${TIMING_KINDS.map(k => `"${k}"`).join(', ')}`
  if (!Array.isArray(value) || value.length > TIMING_KINDS.length * 4) throw invalid(what, 'timestamps', value)
  for (const kind of value) if (!TIMING_KINDS.includes(kind as TimingKind)) throw invalid(what, 'timestamps', value)
  return [...new Set(value as TimingKind[])]
}

const SPAN = {
  start_sample: { type: 'integer', description: 'From the answer\'s first PCM sample, at sample_rate' },
  end_sample: { type: 'integer', description: 'Exclusive' },
  start_ms: { type: 'number' },
  end_ms: { type: 'number' }
}

/** The OpenAPI schemas of the field and of the events (openapi.ts). */
export const TIMING_SCHEMAS = {
  field: {
    type: 'array',
    items: { type: 'string', enum: TIMING_KINDS },
    description: 'Timing to send with the audio (docs/timing.md): a whole answer becomes JSON with the audio base64-encoded beside the events; a streamed one (stream, or stream_format sse) Server-Sent Events with speech.timing events before the audio they cover. Word offsets (text_start, text_end) are UTF-16 code units (JavaScript string indices) into the text as sent.'
  },
  events: {
    type: 'object',
    properties: {
      audio: { type: 'string', description: 'Whole answers: the audio, base64' },
      audio_format: { type: 'string' },
      sample_rate: { type: 'integer' },
      words: { type: 'array', items: { type: 'object', properties: { word: { type: 'string', description: 'The word as written: the text sent, from text_start to text_end' }, text_start: { type: 'integer', description: 'UTF-16 code units into the text as sent (a JavaScript string index)' }, text_end: { type: 'integer', description: 'Exclusive' }, ...SPAN } } },
      phonemes: { type: 'array', items: { type: 'object', properties: { phoneme: { type: 'string' }, ...SPAN } } },
      visemes: { type: 'array', items: { type: 'object', properties: { viseme: { type: 'string', enum: VISEMES }, ...SPAN } } }
    }
  }
}

const ms = (sample: number, rate: number): number => Math.round(sample * 100_000 / rate) / 100

function span (start: number, end: number, rate: number): Record<string, number> {
  return { start_sample: start, end_sample: end, start_ms: ms(start, rate), end_ms: ms(end, rate) }
}

/** Timing events in their wire form: one chunk's, or a whole answer's. */
export interface TimingEvents { sample_rate: number, words: object[], phonemes: object[], visemes: object[] }

/** The wire form of a chunk's events (snake_case, as the rest of the API). */
export function timingEvents (chunk: TimingChunk): TimingEvents {
  const rate = chunk.sampleRate
  return {
    sample_rate: rate,
    words: chunk.words.map(w => ({ word: w.word, text_start: w.textStart, text_end: w.textEnd, ...span(w.startSample, w.endSample, rate) })),
    phonemes: chunk.phonemes.map(p => ({ phoneme: p.phoneme, ...span(p.startSample, p.endSample, rate) })),
    visemes: chunk.visemes.map(v => ({ viseme: v.viseme, ...span(v.startSample, v.endSample, rate) }))
  }
}

/** A whole answer's events, gathered chunk by chunk (the timed JSON answer, `chorus say --timestamps`). */
export class TimingAssembly {
  readonly events: TimingEvents = { sample_rate: 0, words: [], phonemes: [], visemes: [] }

  add (chunk: TimingChunk): void {
    const wire = timingEvents(chunk)
    this.events.sample_rate = wire.sample_rate
    this.events.words.push(...wire.words)
    this.events.phonemes.push(...wire.phonemes)
    this.events.visemes.push(...wire.visemes)
  }
}

/** One Server-Sent Event carrying a chunk's timing; the audio's events are `speech.audio.delta`. */
export function sseTiming (chunk: TimingChunk): string {
  return `data: ${JSON.stringify({ type: 'speech.timing', ...timingEvents(chunk) })}\n\n`
}
