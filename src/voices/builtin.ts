// The built-in voice: espeak-ng's own synthesizer, linked into the addon.
// It needs no files, so a fresh machine with no downloaded voice can speak.

import type { NativeBinding } from '../engine/index.js'
import { concatSamples, toTypedError } from '../engine/index.js'
import { SynthesisCancelledError } from '../engine/errors.js'

export const BUILTIN_VOICE = 'en_US-espeak-low'
const ESPEAK_VOICE = 'en-us'
/** espeak's default speaking rate and the range it accepts, in words per minute. */
const BASE_RATE = 175
const MIN_RATE = 80
const MAX_RATE = 450

/** length_scale is Piper's "slower when larger": espeak's rate is its inverse. */
function espeakRate (lengthScale: number): number {
  return Math.min(MAX_RATE, Math.max(MIN_RATE, Math.round(BASE_RATE / lengthScale)))
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' })

export function splitSentences (text: string): string[] {
  return [...segmenter.segment(text)].map(s => s.segment.trim()).filter(s => s.length > 0)
}

/** Longest piece espeak speaks in one call: it holds the process-wide
 * espeak lock for the whole call, and other voices' phonemization waits. */
const MAX_CLAUSE_CHARACTERS = 200

/** A sentence cut after clause punctuation, and any run longer than
 * MAX_CLAUSE_CHARACTERS cut at its last space before the limit. */
function splitClauses (sentence: string): string[] {
  const clauses = sentence.split(/(?<=[,;:])\s+/)
  const pieces: string[] = []
  for (let clause of clauses) {
    while ([...clause].length > MAX_CLAUSE_CHARACTERS) {
      const head = [...clause].slice(0, MAX_CLAUSE_CHARACTERS).join('')
      const space = head.lastIndexOf(' ')
      const cut = space > 0 ? space : head.length
      pieces.push(clause.slice(0, cut))
      clause = clause.slice(cut).trimStart()
    }
    if (clause.length > 0) pieces.push(clause)
  }
  return pieces
}

/** Where the built-in voice hands its audio, in order: each clause as it is
 * spoken (streamed), or each sentence whole; both awaited, so a slow reader
 * holds the next clause back. */
export interface BuiltinSinks {
  onChunk?: (pcm: Int16Array, sentence: number, chunk: number) => void | Promise<void>
  onSentence?: (pcm: Int16Array, sentence: number) => void | Promise<void>
}

/** Speaks `text` sentence by sentence (the caller joins them with
 * `sentenceSilence`), each clause by clause, so the espeak lock is let go
 * between clauses. Samples are at espeak's sample rate. Nothing is kept
 * once handed on. */
export async function synthesizeBuiltin (
  binding: NativeBinding, text: string,
  settings: { lengthScale: number, sentenceSilence: number }, signal: AbortSignal, sinks: BuiltinSinks
): Promise<void> {
  const rate = espeakRate(settings.lengthScale)
  for (const [index, sentence] of splitSentences(text).entries()) {
    const clauses: Int16Array[] = []
    for (const [chunk, clause] of splitClauses(sentence).entries()) {
      const pcm = await speak(binding, clause, rate, signal)
      if (sinks.onChunk !== undefined) await sinks.onChunk(pcm, index, chunk)
      else clauses.push(pcm)
    }
    if (sinks.onChunk === undefined) await sinks.onSentence?.(concatSamples(clauses, n => new Int16Array(n)), index)
  }
}

async function speak (binding: NativeBinding, text: string, rate: number, signal: AbortSignal): Promise<Int16Array> {
  if (signal.aborted) throw new SynthesisCancelledError()
  const token = new binding.CancelToken()
  const cancel = () => token.cancel()
  signal.addEventListener('abort', cancel, { once: true })
  try {
    return await binding.espeakSynthesize(text, ESPEAK_VOICE, rate, token)
  } catch (error) {
    throw toTypedError(error)
  } finally {
    signal.removeEventListener('abort', cancel)
  }
}
