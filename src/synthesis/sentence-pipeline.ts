// One request's sentences on a voice's pool, with bounded work per run:
// every sentence (cut at word boundaries past the phoneme cap) is one task;
// a long one comes back as a latent whose decoder chunks are spread over the
// voice's workers; everything is handed on in order.
//
// Gain. A sentence that arrives in one piece is normalised by its own peak,
// exactly as Piper does. The non-streamed answer always is: its chunks are
// joined first. A streamed sentence's first chunk must leave before the
// sentence's peak is known, so each streamed chunk is scaled by
//   32767 / max(peak of the sentence so far, the voice's typical peak)
// where the typical peak is the median peak of the voice's recent sentences
// (seeded by its warm-up sentence). Audio never clips (the divisor is at
// least every sample so far), a quiet start is not blown up to full scale,
// and a sentence whose peak is typical sounds as it would unstreamed.

import {
  concatSamples, encoderRuns, floatToPcm16, peakOf, scaleToPcm16, type ChunkingSettings, type SynthesisConfig
} from '../engine/index.js'
import { setMaxListeners } from 'node:events'
import type { VoicePool } from '../pool/voice-pool.js'
import type { AnswerClock } from '../pool/schedule-clock.js'
import type { Due, Ticket } from '../pool/schedule.js'
import { SentenceDeadlines } from '../pool/sentence-deadlines.js'
import { ServedTime } from '../pool/served-time.js'
import { LookAhead } from './look-ahead.js'
import { COMMON_SHARE, type Share } from '../pool/share.js'

/** Receives streamed PCM in order: chunk 0 of a sentence starts it. The
 * next chunk is not handed on before a returned promise settles (the reader
 * is slow), and a rejection stops the run. */
export type ChunkSink = (pcm: Int16Array, sentence: number, chunk: number) => void | Promise<void>

/** Receives an unstreamed sentence's PCM, whole, in order; awaited like a ChunkSink. */
export type WholeSentenceSink = (pcm: Int16Array, sentence: number) => void | Promise<void>

/** One piece's phonemes (BOS, the piece's phonemes, EOS) and the samples
 * each covers: together exactly the piece's samples (phoneme-frames.ts). */
export interface PieceTiming {
  phonemes: Uint32Array
  samples: Uint32Array
}

/** Receives each piece's timing before the piece's first chunk is handed
 * on (with `piece` 0 starting a sentence); awaited like a ChunkSink. */
export type TimingSink = (timing: PieceTiming, sentence: number, piece: number) => void | Promise<void>

export interface PipelineOptions {
  /** Orders this request's tasks after earlier requests' on the same voice. */
  request: number
  chunking: ChunkingSettings
  /** Streamed: small first chunks and the streaming gain rule. */
  onChunk?: ChunkSink
  /** Unstreamed: each sentence's PCM, normalised by its own peak. */
  onSentence?: WholeSentenceSink
  /** Streamed: sentences started ahead of the one being handed on, itself
   * included, so a reader who stops taking chunks stops the work too. */
  lookAhead?: LookAhead
  /** Told each sentence's index as its work is queued. */
  onStart?: (sentence: number) => void
  /** When the answer's next audio is due; advanced here as audio is handed on (streamed) or made. */
  clock: AnswerClock
  /** Whose share of the inference slots the work counts in. */
  tenant?: Share
  /** Wanted when set: each piece's timing, in order, before its audio. */
  onTiming?: TimingSink
  /** The answer goes on after these sentences (a script's later passage): its clock is not finished here. */
  keepClock?: boolean
}

/** What is left of a run once its audio was handed on (none of it is kept). */
export interface PipelineResult {
  missingPhonemes: number
  /** Per sentence: decoder chunks, and the worker threads that made them. */
  spread: Array<{ chunks: number, workers: number }>
}

/** Decoder chunks of one piece are ordered after its first task. */
const CHUNKS_PER_PIECE = 1 << 16

interface PieceWork {
  missing: number
  timing?: PieceTiming
  chunks: Array<Promise<{ samples: Float32Array, worker: number }>>
}

function startPiece (pool: VoicePool, phonemes: Uint32Array, settings: SynthesisConfig, stream: boolean,
  ticket: Ticket, dueWithin: (samples: number) => Due, expect: (samples: number) => void, signal: AbortSignal): Promise<PieceWork> {
  const { order } = ticket
  // How long it will play, as far as can be told before its encoder run: an
  // answer (or sentence) heard after this one is due that much later.
  const estimate = pool.estimateSamples(phonemes.length, settings.lengthScale)
  expect(estimate)
  return pool.sentence(phonemes, settings, stream, ticket, signal).then(result => {
    expect(result.totalSamples - estimate)
    const chunks: PieceWork['chunks'] = []
    if (result.samples !== undefined) chunks.push(Promise.resolve({ samples: result.samples, worker: result.worker }))
    // Each chunk is due when its listener has heard the audio before it.
    const first = result.samples?.length ?? 0
    const restFrames = result.chunks.reduce((sum, chunk) => sum + chunk.range.end - chunk.range.start, 0)
    const samplesPerFrame = restFrames > 0 ? (result.totalSamples - first) / restFrames : 0
    let within = first
    result.chunks.forEach((chunk, i) => {
      chunks.push(pool.decode(chunk, { ...ticket, due: dueWithin(within), order: [order[0], order[1], order[2] + 1 + i] }, signal))
      within += (chunk.range.end - chunk.range.start) * samplesPerFrame
    })
    // A later failure must not surface as unhandled while an earlier one is awaited.
    for (const chunk of chunks) chunk.catch(() => {})
    const timing = result.timing === undefined ? {} : { timing: pieceTiming(result.timing) }
    return { missing: result.missingPhonemes, chunks, ...timing }
  })
}

function pieceTiming ({ phonemes, frames, hopLength }: { phonemes: Uint32Array, frames: Uint32Array, hopLength: number }): PieceTiming {
  return { phonemes, samples: frames.map(f => f * hopLength) }
}

/** Each sentence's deadline: streamed, its own (sentence-deadlines.ts);
 * whole, the answer's. Lengths told to the answer's clock either way. */
function sentenceDues (clock: AnswerClock, stream: boolean): { due: (s: number, within?: number) => Due, expect: (s: number, samples: number) => void } {
  if (!stream) return { due: () => clock, expect: (_s, samples) => clock.expect(samples) }
  const deadlines = new SentenceDeadlines(clock)
  return {
    due: (s, within) => deadlines.due(s, within),
    expect: (s, samples) => {
      clock.expect(samples)
      deadlines.expect(s, samples)
    }
  }
}

/** Queues one sentence's pieces, each with its sentence's deadline and its request's served time. */
function sentenceStarter (pool: VoicePool, settings: SynthesisConfig, signal: AbortSignal, options: PipelineOptions,
  stream: boolean): (phonemes: Uint32Array, s: number) => Array<Promise<PieceWork>> {
  const tenant = options.tenant ?? COMMON_SHARE
  const { due, expect } = sentenceDues(options.clock, stream)
  // One request's inference time, for least attained service between whole answers.
  const served = new ServedTime()
  return (phonemes, s) => {
    const pieces = encoderRuns(phonemes, options.chunking, stream && s === 0)
      .map((piece, p) => startPiece(pool, piece.slice(), settings, stream,
        { order: [options.request, s, p * CHUNKS_PER_PIECE], tenant, due: due(s), served }, within => due(s, within), samples => expect(s, samples), signal))
    for (const piece of pieces) piece.catch(() => {})
    return pieces
  }
}

export async function runSentences (pool: VoicePool, sentences: Uint32Array[], settings: SynthesisConfig,
  signal: AbortSignal, options: PipelineOptions): Promise<PipelineResult> {
  try {
    return await runAll(pool, sentences, settings, signal, options)
  } finally {
    // Its playback's end is known for good: an answer heard after it reads that.
    if (options.keepClock !== true) options.clock.finish()
  }
}

async function runAll (pool: VoicePool, sentences: Uint32Array[], settings: SynthesisConfig,
  signal: AbortSignal, options: PipelineOptions): Promise<PipelineResult> {
  const stream = options.onChunk !== undefined
  // Every queued task listens for the request's abort: not a leak.
  setMaxListeners(0, signal)
  // Sentences are queued a look-ahead ahead so they spread over the
  // workers. Unstreamed, the answer needs them all, so all are queued at once.
  const lookAhead = stream ? options.lookAhead ?? new LookAhead(sentences.length) : new LookAhead(Math.max(1, sentences.length))
  const work: Array<Array<Promise<PieceWork>> | undefined> = []
  const begin = sentenceStarter(pool, settings, signal, options, stream)
  const start = (s: number): void => {
    if (s >= sentences.length || work[s] !== undefined) return
    work[s] = begin(sentences[s], s)
    options.onStart?.(s)
  }
  for (let s = 0; lookAhead.allows(s, 0); s++) start(s)

  const result: PipelineResult = { missingPhonemes: 0, spread: [] }
  for (let s = 0; s < sentences.length; s++) {
    for (let next = s; lookAhead.allows(next, s) && next < sentences.length; next++) start(next)
    const pieces = work[s] ?? []
    // Handed on: its audio is no longer held here.
    work[s] = []
    // Unstreamed, a sentence's samples wait for its peak; streamed, nothing waits.
    const floats: Float32Array[] = []
    let runningPeak = 0
    let chunkIndex = 0
    let chunkCount = 0
    const workers = new Set<number>()
    for (const [p, piece] of pieces.entries()) {
      const { missing, chunks, timing } = await piece
      result.missingPhonemes += missing
      if (options.onTiming !== undefined && timing !== undefined) await options.onTiming(timing, s, p)
      chunkCount += chunks.length
      for (const chunk of chunks) {
        const { samples, worker } = await chunk
        workers.add(worker)
        options.clock.advance(samples.length)
        runningPeak = Math.max(runningPeak, peakOf(samples))
        if (options.onChunk === undefined) {
          floats.push(samples)
          continue
        }
        const whole = pieces.length === 1 && chunks.length === 1
        const scaled = whole ? floatToPcm16(samples) : scaleToPcm16(samples, Math.max(runningPeak, pool.typicalPeak))
        await options.onChunk(scaled, s, chunkIndex++)
      }
    }
    result.spread.push({ chunks: chunkCount, workers: workers.size })
    pool.observePeak(runningPeak)
    if (options.onChunk === undefined) await options.onSentence?.(floatToPcm16(concatSamples(floats, n => new Float32Array(n))), s)
  }
  return result
}
