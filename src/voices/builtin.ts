// The built-in voice: espeak-ng's own synthesizer, linked into the addon.
// It needs no files, so a fresh machine with no downloaded voice can speak.

import type { NativeBinding, NativeEspeakSpeech } from '../engine/index.js'
import { concatSamples, toTypedError } from '../engine/index.js'
import { SynthesisCancelledError } from '../engine/errors.js'

export const BUILTIN_VOICE = 'en_US-espeak-low'
/** The espeak-ng voice the built-in voice speaks with. */
export const BUILTIN_ESPEAK_VOICE = 'en-us'
const ESPEAK_VOICE = BUILTIN_ESPEAK_VOICE
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

/** Ranges of `text` inside espeak-ng's phoneme brackets `[[ … ]]`, which no cut may split. */
function phonemeBlocks (text: string): Array<[number, number]> {
  return [...text.matchAll(/\[\[.*?\]\]/gs)].map(m => [m.index, m.index + m[0].length])
}

function inside (blocks: ReadonlyArray<[number, number]>, at: number): boolean {
  return blocks.some(([start, end]) => at > start && at < end)
}

function sentenceSpans (text: string, keepBlocks = false): TextSpan[] {
  const blocks = keepBlocks ? phonemeBlocks(text) : []
  const cuts = [...segmenter.segment(text)].map(s => s.index).filter(at => !inside(blocks, at))
  return cuts.map((at, i) => trimmedSpan(text.slice(at, cuts[i + 1] ?? text.length), at)).filter(s => s.text.length > 0)
}

export function splitSentences (text: string): string[] {
  return sentenceSpans(text).map(s => s.text)
}

/** Longest piece espeak speaks in one call: it holds the process-wide
 * espeak lock for the whole call, and other voices' phonemization waits. */
const MAX_CLAUSE_CHARACTERS = 200

/** A sentence cut after clause punctuation, and any run longer than
 * MAX_CLAUSE_CHARACTERS cut at its last space before the limit. */
function splitClauses (sentence: TextSpan, keepBlocks = false): TextSpan[] {
  const pieces: TextSpan[] = []
  let from = 0
  const clauses: TextSpan[] = []
  const blocks = keepBlocks ? phonemeBlocks(sentence.text) : []
  for (const gap of sentence.text.matchAll(/(?<=[,;:])\s+/g)) {
    if (inside(blocks, gap.index)) continue
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

/** How the built-in voice reads a text: in another espeak-ng language
 * (SSML `<lang>`), and with espeak-ng's phoneme mnemonics inside `[[ ]]`
 * (builtin-phonemes.ts), which no sentence or clause cut splits. */
export interface BuiltinReading {
  espeakVoice?: string
  phonemeInput?: boolean
}

/** How many sentences synthesizeBuiltin speaks `text` as. */
export function builtinSentenceCount (text: string, reading: BuiltinReading = {}): number {
  return sentenceSpans(text, reading.phonemeInput === true).length
}

/** Speaks `text` sentence by sentence (the caller joins them with
 * `sentenceSilence`), each clause by clause, so the espeak lock is let go
 * between clauses. Samples are at espeak's sample rate. Nothing is kept
 * once handed on. */
export async function synthesizeBuiltin (
  binding: NativeBinding, text: string,
  settings: { lengthScale: number, sentenceSilence: number }, signal: AbortSignal, sinks: BuiltinSinks, reading: BuiltinReading = {}
): Promise<void> {
  const rate = espeakRate(settings.lengthScale)
  const blocks = reading.phonemeInput === true
  for (const [index, sentence] of sentenceSpans(text, blocks).entries()) {
    const clauses: Int16Array[] = []
    for (const [chunk, clause] of splitClauses(sentence, blocks).entries()) {
      const speech = await speak(binding, clause.text, rate, signal, sinks.onClause !== undefined, reading)
      await sinks.onClause?.({ clause, speech }, index, chunk)
      if (sinks.onChunk !== undefined) await sinks.onChunk(speech.samples, index, chunk)
      else clauses.push(speech.samples)
    }
    if (sinks.onChunk === undefined) await sinks.onSentence?.(concatSamples(clauses, n => new Int16Array(n)), index)
  }
}

const NO_EVENTS = { words: new Int32Array(0), phonemes: { names: [], samples: new Int32Array(0) } }

async function speak (binding: NativeBinding, text: string, rate: number, signal: AbortSignal, events: boolean, reading: BuiltinReading): Promise<NativeEspeakSpeech> {
  if (signal.aborted) throw new SynthesisCancelledError()
  const token = new binding.CancelToken()
  const cancel = () => token.cancel()
  signal.addEventListener('abort', cancel, { once: true })
  const voice = reading.espeakVoice ?? ESPEAK_VOICE
  const phonemes = reading.phonemeInput === true
  try {
    if (events) return await binding.espeakSynthesize(text, voice, rate, token, true, phonemes)
    return { samples: await binding.espeakSynthesize(text, voice, rate, token, false, phonemes), ...NO_EVENTS }
  } catch (error) {
    throw toTypedError(error)
  } finally {
    signal.removeEventListener('abort', cancel)
  }
}
