// The built-in voice: espeak-ng's own synthesizer, linked into the addon.
// It needs no files, so a fresh machine with no downloaded voice can speak.

import type { NativeBinding, NativeEspeakSpeech } from '../engine/index.js'
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

/** A piece of a text and where it starts in it (UTF-16 code units). */
export interface TextSpan {
  text: string
  start: number
}

/** The span of `text` from `start` without its surrounding whitespace. */
function trimmedSpan (text: string, start: number): TextSpan {
  const lead = text.length - text.trimStart().length
  return { text: text.trim(), start: start + lead }
}

function sentenceSpans (text: string): TextSpan[] {
  return [...segmenter.segment(text)].map(s => trimmedSpan(s.segment, s.index)).filter(s => s.text.length > 0)
}

export function splitSentences (text: string): string[] {
  return sentenceSpans(text).map(s => s.text)
}

/** Longest piece espeak speaks in one call: it holds the process-wide
 * espeak lock for the whole call, and other voices' phonemization waits. */
const MAX_CLAUSE_CHARACTERS = 200

/** A sentence cut after clause punctuation, and any run longer than
 * MAX_CLAUSE_CHARACTERS cut at its last space before the limit. */
function splitClauses (sentence: TextSpan): TextSpan[] {
  const pieces: TextSpan[] = []
  let from = 0
  const clauses: TextSpan[] = []
  for (const gap of sentence.text.matchAll(/(?<=[,;:])\s+/g)) {
    clauses.push({ text: sentence.text.slice(from, gap.index), start: sentence.start + from })
    from = gap.index + gap[0].length
  }
  clauses.push({ text: sentence.text.slice(from), start: sentence.start + from })
  for (let clause of clauses) {
    while ([...clause.text].length > MAX_CLAUSE_CHARACTERS) {
      const head = [...clause.text].slice(0, MAX_CLAUSE_CHARACTERS).join('')
      const space = head.lastIndexOf(' ')
      const cut = space > 0 ? space : head.length
      pieces.push({ text: clause.text.slice(0, cut), start: clause.start })
      clause = trimmedSpan(clause.text.slice(cut), clause.start + cut)
    }
    if (clause.text.length > 0) pieces.push(clause)
  }
  return pieces
}

/** One clause as spoken, with espeak-ng's events: `clause` is where it is in the text. */
export interface BuiltinClause {
  clause: TextSpan
  speech: NativeEspeakSpeech
}

/** Where the built-in voice hands its audio, in order: each clause as it is
 * spoken (streamed), or each sentence whole; both awaited, so a slow reader
 * holds the next clause back. `onClause`, when given, receives each clause's
 * events before its samples (and turns espeak-ng's events on). */
export interface BuiltinSinks {
  onChunk?: (pcm: Int16Array, sentence: number, chunk: number) => void | Promise<void>
  onSentence?: (pcm: Int16Array, sentence: number) => void | Promise<void>
  onClause?: (clause: BuiltinClause, sentence: number, chunk: number) => void | Promise<void>
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
  for (const [index, sentence] of sentenceSpans(text).entries()) {
    const clauses: Int16Array[] = []
    for (const [chunk, clause] of splitClauses(sentence).entries()) {
      const speech = await speak(binding, clause.text, rate, signal, sinks.onClause !== undefined)
      await sinks.onClause?.({ clause, speech }, index, chunk)
      if (sinks.onChunk !== undefined) await sinks.onChunk(speech.samples, index, chunk)
      else clauses.push(speech.samples)
    }
    if (sinks.onChunk === undefined) await sinks.onSentence?.(concatSamples(clauses, n => new Int16Array(n)), index)
  }
}

const NO_EVENTS = { words: new Int32Array(0), phonemes: { names: [], samples: new Int32Array(0) } }

async function speak (binding: NativeBinding, text: string, rate: number, signal: AbortSignal, events: boolean): Promise<NativeEspeakSpeech> {
  if (signal.aborted) throw new SynthesisCancelledError()
  const token = new binding.CancelToken()
  const cancel = () => token.cancel()
  signal.addEventListener('abort', cancel, { once: true })
  try {
    if (events) return await binding.espeakSynthesize(text, ESPEAK_VOICE, rate, token, true)
    return { samples: await binding.espeakSynthesize(text, ESPEAK_VOICE, rate, token), ...NO_EVENTS }
  } catch (error) {
    throw toTypedError(error)
  } finally {
    signal.removeEventListener('abort', cancel)
  }
}
